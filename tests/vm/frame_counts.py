# Frames written to the strip by the app on a simulated board, under either
# runtime (tests/test_frames.py runs it under both). argv: BOARD_JSON.
# Prints one JSON object: frames written in each stretch, and how many renders
# left the strip showing something other than the renderer's frame (0: no
# visible change was skipped).
import json
import sys

from sim.portable.run_core import Driver

driver = Driver(sys.argv[1])
driver.begin(lambda text: None)  # events are not wanted here
app = driver.app
board = driver.board
stale = [0]
render = app.render


def checked_render(now_ms):
    render(now_ms)
    if board.frame != app.lamps.frame:
        stale[0] += 1


app.render = checked_render


def frames_during(script):
    before = board.frames
    driver.run(script)
    return board.frames - before


out = {}
out["first_second"] = frames_during("wait:1000")
out["idle"] = frames_during("wait:10240")
before = board.frames
driver.run("3 3")  # point 6
out["roll"] = board.frames - before
out["point_6_shown"] = board.frame[3 * driver.layout.pixels["point.6"]] != 0
out["point_off_dark"] = board.frame[3 * driver.layout.pixels["point.off"]] == 0
# Four Fire points made (4, 5, 6, 8): the floor lamp blinks slowly from then on.
driver.run("3 3 2 2 2 2 2 3 2 3 3 3 3 3 4 4 4 4 wait:6000")
out["blinking_idle"] = frames_during("wait:10240")
out["lamp_test"] = frames_during("test wait:2500")
out["stale"] = stale[0]
print(json.dumps(out))
