"""Runs the jobs of CI templates (.github/workflows/*.yml, .gitlab-ci.yml)
in a checkout, their commands as written, as the CI system would: for
tests/test_ci_templates.sh.

usage: python3 tests/ci_jobs.py CHECKOUT TEMPLATE...

Per job, one line per step ('step: exit N: command', or 'skipped: why'),
then 'job FILE JOB: exit N' (N: the first failing step's status, 0 where
none failed). GitHub Actions: the run: steps in order under bash -e (bash
-eo pipefail with shell: bash), a failed step ends the job but for later
steps with if: always(); a uses: step is skipped with why (the checkout
is the fresh clone the caller made). GitLab CI: before_script and script
lines in order, the first that fails ends the job; after_script always.
A command that installs packages from the network (apt-get) is skipped:
this host has them (scripts/deps.sh, run as written, checks). Exit 0 where
every template parsed and had a job, 2 where one did not."""
import os
import subprocess
import sys

import yaml

SKIP_PREFIX = {"apt-get": "installs packages from the network: this host has them (scripts/deps.sh checks)"}
USES_WHY = {"actions/checkout": "the fresh clone this runs in stands for the checkout",
            "actions/upload-artifact": "no artifact store here (the files stay in the clone)"}
GITLAB_RESERVED = {"stages", "variables", "default", "include", "workflow", "image", "services", "cache",
                   "before_script", "after_script"}


def skipped(cmd):
    word = cmd.split()[0] if cmd.split() else ""
    return SKIP_PREFIX.get(word)


def run(cwd, cmd, shell):
    print("    $ %s" % cmd.strip().replace("\n", "\n      "), flush=True)
    why = skipped(cmd)
    if why:
        print("    skipped: %s" % why, flush=True)
        return 0
    r = subprocess.run(shell + [cmd], cwd=cwd)
    print("    exit %d" % r.returncode, flush=True)
    return r.returncode


def github_jobs(doc):
    for name, job in (doc.get("jobs") or {}).items():
        steps = []
        for st in job.get("steps") or []:
            always = str(st.get("if", "")).replace(" ", "") in ("always()", "${{always()}}")
            if "uses" in st:
                act = st["uses"].split("@")[0]
                steps.append(("skip", "%s: %s" % (st["uses"], USES_WHY.get(act, "an action: runs only on GitHub")),
                              always))
            elif "run" in st:
                shell = ["bash", "-eo", "pipefail", "-c"] if st.get("shell") == "bash" else ["bash", "-e", "-c"]
                steps.append(("run", (st["run"], shell), always))
        yield name, "github", steps


def gitlab_jobs(doc):
    for name, job in doc.items():
        if name in GITLAB_RESERVED or name.startswith(".") or not isinstance(job, dict) or "script" not in job:
            continue
        shell = ["bash", "-e", "-c"]
        steps = [("run", (c, shell), False) for c in (job.get("before_script") or doc.get("before_script") or [])]
        steps += [("run", (c, shell), False) for c in job["script"]]
        steps += [("run", (c, shell), True) for c in (job.get("after_script") or [])]
        yield name, "gitlab", steps


def main():
    cwd, templates = sys.argv[1], sys.argv[2:]
    bad = 0
    for t in templates:
        with open(t) as f:
            doc = yaml.safe_load(f)
        gh = "jobs" in doc and (True in doc or "on" in doc)
        jobs = list(github_jobs(doc) if gh else gitlab_jobs(doc))
        if not jobs:
            print("template %s: no job" % t)
            bad = 1
        for name, kind, steps in jobs:
            print("job %s %s (%s):" % (os.path.basename(t), name, kind), flush=True)
            rc = 0
            for what, arg, always in steps:
                if rc != 0 and not always:
                    continue
                if what == "skip":
                    print("    skipped: %s" % arg, flush=True)
                    continue
                r = run(cwd, *arg)
                if r != 0 and rc == 0:
                    rc = r
            print("job %s %s: exit %d" % (os.path.basename(t), name, rc), flush=True)
    return 2 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
