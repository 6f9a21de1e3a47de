#!/usr/bin/env python3
"""Opens an HTML page in a real headless browser (Debian's chromium) and says
what a reader would see: whether it loaded without errors (console errors,
exceptions, failed or refused loads: the Content-Security-Policy's
violations are among them), each image's natural width (0: not displayed),
the tables, and optionally a screenshot.

usage: tests/report_browser.py PAGE.html [--screenshot PNG [--height PX]]

Prints one JSON object: {"url", "title", "errors": [...], "images":
[{"alt", "width"}], "tables": [row counts], "claims_rows": N}. Exit status 0
when the page loaded with no error and every image has a width, 1 otherwise,
77 when no browser is installed or it cannot start here (the reason on the
last line).

It speaks the DevTools protocol over a pipe (--remote-debugging-pipe: JSON
messages ended by a NUL byte on fds 3 and 4), so it needs nothing beyond
the standard library and the browser.
"""
import argparse
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
PROBE = """JSON.stringify({
  title: document.title,
  images: [...document.images].map(i => ({alt: i.alt, width: i.naturalWidth, complete: i.complete})),
  tables: [...document.querySelectorAll('table')].map(t => t.rows.length),
  claims_rows: [...document.querySelectorAll('table.claims tr')].length,
  height: document.documentElement.scrollHeight})"""


class Browser:
    def __init__(self, exe, profile):
        to_b, self._w = os.pipe()
        self._r, from_b = os.pipe()

        def fds():
            os.dup2(to_b, 3)
            os.dup2(from_b, 4)
        args = [exe, "--headless", "--remote-debugging-pipe", "--disable-gpu", "--no-first-run",
                "--user-data-dir=" + profile, "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")     # chromium refuses to run as root with its sandbox
        self.log = open(os.path.join(profile, "stderr.log"), "w+")
        self.proc = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=fds, stdout=subprocess.DEVNULL,
                                     stderr=self.log)
        os.close(to_b)
        os.close(from_b)
        self.buf, self.n, self.events = b"", 0, []

    def send(self, method, params=None, session=None):
        self.n += 1
        msg = {"id": self.n, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        return self.n

    def recv(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.time()
            if left <= 0 or not select.select([self._r], [], [], left)[0]:
                raise TimeoutError("the browser did not answer in time")
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise EOFError("the browser closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=60):
        i = self.send(method, params, session)
        deadline = time.time() + timeout
        while True:
            m = self.recv(deadline)
            if m.get("id") == i:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_for(self, method, timeout=60):
        deadline = time.time() + timeout
        while not any(e.get("method") == method for e in self.events):
            self.events.append(self.recv(deadline))

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def errors_of(events):
    """what went wrong while the page loaded: console errors, exceptions, log errors, failed loads"""
    out = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description", "")))
                                                             for a in p.get("args", []))))
        elif m == "Runtime.exceptionThrown":
            out.append("exception: %s" % p.get("exceptionDetails", {}).get("text", ""))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            out.append("log: %s %s" % (p["entry"].get("text", ""), p["entry"].get("url", "")))
        elif m == "Network.loadingFailed":
            out.append("load failed: %s %s" % (p.get("errorText", ""), p.get("blockedReason", "")))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="report_browser.py", description=__doc__.split("\n")[0])
    ap.add_argument("page")
    ap.add_argument("--screenshot", metavar="PNG")
    ap.add_argument("--height", type=int, default=0, help="the screenshot's height in CSS pixels (0: the whole page)")
    ap.add_argument("--width", type=int, default=1280)
    a = ap.parse_args(argv)
    exe = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)
    if not exe:
        print("no headless browser (%s) installed: scripts/deps.sh check installs Debian's chromium"
              % ", ".join(BROWSERS))
        return 77
    url = "file://" + os.path.abspath(a.page)
    profile = tempfile.mkdtemp(prefix="tc-browser-")
    b = Browser(exe, profile)
    try:
        try:
            target = b.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        except (EOFError, TimeoutError) as err:
            # installed but it cannot run here (no sandbox, no display
            # support): not a page's fault; say why
            b.log.seek(0)
            why = [ln.strip() for ln in b.log.read().splitlines() if ln.strip()]
            print("%s did not start (%s): %s" % (exe, err, why[-1] if why else "no output"))
            return 77
        s = b.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            b.call(domain + ".enable", session=s)
        b.call("Emulation.setDeviceMetricsOverride", {"width": a.width, "height": 900, "deviceScaleFactor": 1,
                                                      "mobile": False}, s)
        b.call("Page.navigate", {"url": url}, s)
        b.wait_for("Page.loadEventFired")
        probe = json.loads(b.call("Runtime.evaluate", {"expression": PROBE, "returnByValue": True},
                                  s)["result"]["value"])
        if a.screenshot:
            h = a.height or probe["height"]
            shot = b.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                     "clip": {"x": 0, "y": 0, "width": a.width, "height": h,
                                                              "scale": 1}}, s)
            with open(a.screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        errors = errors_of(b.events)
    finally:
        b.close()
        shutil.rmtree(profile, True)
    out = {"url": url, "title": probe["title"], "errors": errors,
           "images": [{"alt": i["alt"], "width": i["width"]} for i in probe["images"]],
           "tables": probe["tables"], "claims_rows": probe["claims_rows"]}
    print(json.dumps(out, indent=1))
    bad = errors or any(i["width"] == 0 for i in probe["images"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
