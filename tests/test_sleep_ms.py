"""The firmware's sleep_ms under CPython: MicroPython's asyncio has sleep_ms, CPython's
has not, so the app and the link task (crapsboard/table/app.py, crapsboard/link/link_task.py)
each carry one for the simulator; each must sleep the milliseconds it is given."""

import asyncio
import importlib

import pytest


@pytest.mark.parametrize("module", ["crapsboard.table.app", "crapsboard.link.link_task"])
def test_sleep_ms_sleeps_that_many_milliseconds(module, monkeypatch):
    slept = []

    async def sleep(seconds):
        slept.append(seconds)

    monkeypatch.setattr(asyncio, "sleep", sleep)
    for ms in (250, 10):
        with pytest.raises(StopIteration):
            importlib.import_module(module).sleep_ms(ms).send(None)
    assert slept == [0.25, 0.01]
