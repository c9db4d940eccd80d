"""The pit page as a process and headless Chromium on it: for the browser
tests and `make bench-floor` (Debian's chromium and chromedriver, installed by
`make browser`; selenium drives them; nothing is downloaded)."""

import os
import shutil
import subprocess
import sys

from sim.paths import ROOT

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def missing():
    """Why the browser cannot run here, or None."""
    for path in (CHROMIUM, DRIVER):
        if not os.access(path, os.X_OK):
            return "%s is missing: make browser installs chromium and chromium-driver" % path
    return None


def chrome(width=1280, height=1000):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=%d,%d" % (width, height)):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)


class PageProcess:
    """`python -m host_tools floor page` for a floor directory, until stop()."""

    def __init__(self, directory, port, *options):
        from host_tools.floor.bus import broker

        self.url = "http://127.0.0.1:%d" % port
        # stderr to the floor's logs (DIR/logs, what a failing test prints), never an unread pipe
        # that would stop the page once full
        logs = os.path.join(directory, "logs")
        os.makedirs(logs, exist_ok=True)
        self.log_path = os.path.join(logs, "page-%d.log" % port)
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "host_tools", "floor", "page", "--dir", directory, "--http-port", str(port)]
                + list(options),
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
            )
        self.first_line = self.proc.stdout.readline()
        if not broker.wait_listening(port, 10.0, self.proc):
            raise RuntimeError("the page did not start: " + self.stop())

    def stop(self):
        """Stop the page; what it wrote on stderr."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        with open(self.log_path, errors="replace") as log:
            return log.read()


def log_in(driver, url, name, password):
    from selenium.webdriver.common.by import By

    driver.get(url + "/login")
    driver.find_element(By.NAME, "user").send_keys(name)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "form.login button").click()
