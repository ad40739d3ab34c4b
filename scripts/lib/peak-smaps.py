#!/usr/bin/env python3
"""peak-smaps.py [--every MS] [--keep FILE] -- COMMAND...

What is resident at a command's peak: runs COMMAND, reads its
/proc/PID/status every MS milliseconds (default 10), keeps a copy of
/proc/PID/smaps each time the resident set reaches a new high, and when the
command ends prints that copy grouped the way the memory notes of
BENCHMARKS.md read it:

  anonymous >= 1 MiB   the decoders' large buffers (glibc maps them alone)
                       and the thread arenas (64 MiB mappings)
  [heap]               the main arena
  executable           the command's own file
  libraries            every other mapped file
  other anonymous      stacks, small mappings

and the ten largest mappings. The command's output goes where this script's
goes; its exit status is this script's. --keep FILE writes the peak's smaps
text to FILE. A sample can miss a peak shorter than MS; compare medians of
several runs, not one.
"""
import os
import subprocess
import sys
import time


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def resident_kib(status):
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def groups(smaps, executable):
    sums, largest = {}, []
    name, size = None, 0
    for line in smaps.splitlines():
        fields = line.split()
        if not fields:
            continue
        if not fields[0].endswith(":") and "-" in fields[0]:
            start, end = (int(x, 16) for x in fields[0].split("-"))
            size = end - start
            path = " ".join(fields[5:]) if len(fields) > 5 else ""
            if path == "[heap]":
                name = "[heap]"
            elif path.startswith("/"):
                name = "executable" if os.path.realpath(path) == executable else "libraries"
            elif path.startswith("["):
                name = "other anonymous"
            else:
                name = "anonymous >= 1 MiB" if size >= 1 << 20 else "other anonymous"
            label = f"{fields[0]} {fields[1]} {path or '(anonymous)'}"
        elif fields[0] == "Rss:" and name:
            kib = int(fields[1])
            sums[name] = sums.get(name, 0) + kib
            largest.append((kib, label))
    return sums, sorted(largest, reverse=True)[:10]


def main(argv):
    every, keep = 0.010, None
    while argv and argv[0] != "--":
        option = argv.pop(0)
        if option == "--every":
            every = float(argv.pop(0)) / 1000
        elif option == "--keep":
            keep = argv.pop(0)
        else:
            sys.exit(f"peak-smaps.py: unknown option {option}\n{__doc__}")
    if not argv[1:]:
        sys.exit(__doc__)
    command = argv[1:]
    child = subprocess.Popen(command)
    executable = os.path.realpath(f"/proc/{child.pid}/exe")
    best, best_smaps = 0, None
    while child.poll() is None:
        status = read(f"/proc/{child.pid}/status")
        if status:
            kib = resident_kib(status)
            if kib > best:
                smaps = read(f"/proc/{child.pid}/smaps")
                if smaps:
                    best, best_smaps = kib, smaps
                    executable = os.path.realpath(f"/proc/{child.pid}/exe") or executable
        time.sleep(every)
    if best_smaps is None:
        print("peak-smaps.py: no sample (the command ended too soon)", file=sys.stderr)
        return child.returncode
    if keep:
        with open(keep, "w") as f:
            f.write(best_smaps)
    sums, largest = groups(best_smaps, executable)
    print(f"peak resident set sampled: {best / 1024:.1f} MiB", file=sys.stderr)
    for name, kib in sorted(sums.items(), key=lambda item: -item[1]):
        print(f"  {kib / 1024:7.1f} MiB  {name}", file=sys.stderr)
    print("  largest mappings:", file=sys.stderr)
    for kib, label in largest:
        print(f"  {kib / 1024:7.1f} MiB  {label}", file=sys.stderr)
    return child.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
