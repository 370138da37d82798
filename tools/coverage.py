#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Line coverage of agent/, shm/ and daemon/ per integration module (issue 31).

    tools/coverage.py run  BUILD OUT [MODULE...]   run each module on BUILD (a `make COV=1`
                                                  build, SAN=1 too or not) and keep the lines
                                                  it covered in OUT/MODULE.json
    tools/coverage.py pick OUT [--within 2]        the modules the sanitizer stage must run:
                                                  greedily, those adding most lines, until the
                                                  union is within N points of all modules'
    tools/coverage.py sum  OUT [MODULE...]         the coverage of those modules together

Why per module: the sanitizer stage is worth its time where it reaches code the plain stage
reaches (ASan and UBSan find nothing in code that does not run); a module whose lines are all
covered by others adds nothing under ASan but its concurrency, which the list in
tests/integration/san-modules.txt names by hand.
"""
import glob
import gzip
import json
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = ("agent", "shm", "daemon", "lib")


def gcov_files(path):
    """The per-file entries gcov's JSON gives for one .gcda or .gcno, named relative to the tree,
    those of agent/, shm/, daemon/ and lib/ only."""
    out = subprocess.run(["gcov", "--json-format", "--stdout", path], cwd=TOP,
                         capture_output=True, check=False)
    for chunk in out.stdout.splitlines():
        try:
            doc = json.loads(chunk)
        except ValueError:
            continue
        for f in doc.get("files", []):
            name = os.path.relpath(os.path.join(TOP, f["file"]), TOP)
            if name.startswith(FOLDERS):
                yield name, f["lines"]


def objects(build, ext):
    for folder in FOLDERS:
        yield from glob.glob(os.path.join(build, "obj", folder, "**", "*" + ext), recursive=True)


def covered(build):
    """{file: set(lines)} that the .gcda files now in BUILD/obj/{agent,shm,daemon,lib} ran."""
    hit = {}
    for gcda in objects(build, ".gcda"):
        for name, lines in gcov_files(gcda):
            hit.setdefault(name, set()).update(ln["line_number"] for ln in lines if ln["count"] > 0)
    return hit


def all_lines(build):
    """Every executable line of the four folders, from the .gcno files alone."""
    lines = {}
    for gcno in objects(build, ".gcno"):
        for name, ls in gcov_files(gcno):
            lines.setdefault(name, set()).update(ln["line_number"] for ln in ls)
    return lines


def clear(build):
    for gcda in glob.glob(os.path.join(build, "**", "*.gcda"), recursive=True):
        os.unlink(gcda)


def run(build, out, modules):
    os.makedirs(out, exist_ok=True)
    build = os.path.abspath(build)
    tdir = os.path.join(TOP, "tests", "integration")
    if not modules:
        modules = sorted(os.path.basename(m)[:-3] for m in glob.glob(os.path.join(tdir, "test_*.py")))
    # Agents in processes of other users write their counts too.
    for d, _, _ in os.walk(os.path.join(build, "obj")):
        os.chmod(d, 0o777)
    with open(os.path.join(out, "ALL.json"), "w") as f:
        json.dump({k: sorted(v) for k, v in all_lines(build).items()}, f)
    env = dict(os.environ, B=build, SAN="1" if "san" in os.path.basename(build) else "0")
    for m in modules:
        clear(build)
        t0 = os.times().elapsed
        rc = subprocess.run(["timeout", "900", os.path.join(TOP, "tools", "isolated.sh"),
                             "/usr/bin/python3", m + ".py"], cwd=tdir, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        hit = covered(build)
        with open(os.path.join(out, m + ".json"), "w") as f:
            json.dump({"rc": rc, "seconds": round(os.times().elapsed - t0, 1),
                       "hit": {k: sorted(v) for k, v in hit.items()}}, f)
        print(f"{m}: rc {rc}, {sum(map(len, hit.values()))} lines, "
              f"{os.times().elapsed - t0:.0f} s", flush=True)
    clear(build)


def load(out):
    total = {k: set(v) for k, v in json.load(open(os.path.join(out, "ALL.json"))).items()}
    mods = {}
    for p in glob.glob(os.path.join(out, "test_*.json")):
        doc = json.load(open(p))
        mods[os.path.basename(p)[:-5]] = (doc, {(k, ln) for k, v in doc["hit"].items() for ln in v})
    return total, mods


def pct(n, total):
    return 100.0 * n / max(1, sum(map(len, total.values())))


def pick(out, within):
    total, mods = load(out)
    union = set().union(*(s for _, s in mods.values()))
    full = pct(len(union), total)
    chosen, have = [], set()
    while pct(len(have), total) < full - within:
        best = max((m for m in mods if m not in chosen), key=lambda m: len(mods[m][1] - have))
        chosen.append(best)
        have |= mods[best][1]
    secs = sum(mods[m][0]["seconds"] for m in chosen)
    print(f"all modules: {full:.1f} % of {sum(map(len, total.values()))} lines of "
          f"{', '.join(FOLDERS)} ({sum(d['seconds'] for d, _ in mods.values()):.0f} s)")
    print(f"chosen: {pct(len(have), total):.1f} % ({secs:.0f} s): {' '.join(chosen)}")
    for m in sorted(mods, key=lambda m: -len(mods[m][1])):
        only = mods[m][1] - set().union(*(s for n, (_, s) in mods.items() if n != m))
        print(f"  {m:28s} {len(mods[m][1]):6d} lines, {len(only):5d} only here, "
              f"{mods[m][0]['seconds']:6.0f} s, rc {mods[m][0]['rc']}")


def summ(out, modules):
    total, mods = load(out)
    names = modules or list(mods)
    have = set().union(*(mods[m][1] for m in names if m in mods))
    print(f"{pct(len(have), total):.1f} % of {sum(map(len, total.values()))} lines "
          f"({len([m for m in names if m in mods])} modules)")


def main(argv):
    if len(argv) < 3 or argv[1] not in ("run", "pick", "sum"):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[1] == "run":
        run(argv[2], argv[3], argv[4:])
    elif argv[1] == "pick":
        pick(argv[2], float(argv[4]) if len(argv) > 4 and argv[3] == "--within" else 2.0)
    else:
        summ(argv[2], argv[3:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
