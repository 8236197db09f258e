#!/usr/bin/python3
"""Side by side under the same load: tools measured alternately, round by round.

A tool run fully before its peer measures a different machine: a build beside it, a page
cache warmed by the first, a load average that moved. Here each round runs every command once,
in turn, and a ratio is the median of the per-round ratios (each taken from one round, under
one load), not the ratio of two medians taken minutes apart.

As a module: rounds() and median_ratio(). As a command, for the shell benchmarks:

    alternate.py KIND RUNS NAME CMD... [::: NAME CMD...]...

KIND is what one run measures:
  wall-rss   wall time (ms) and the command's peak RSS (KiB, its own process)
  peak-rss   the command's own peak RSS in MiB (VmHWM, polled every 0.2 s: a launcher, not
             its children)
  restart    ms from the "kill <ns>" line to the last "start 1 <ns>" line the command's
             processes append to the file named by $STAMPS (set afresh for every run)
Prints one line per command, "NAME FIGURE..." (medians), then for each command after the
first "ratio NAME/FIRST RATIO..." (medians of per-round ratios).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time


def rounds(commands, runs, measure):
    """{name: [figures of each round]}: every round runs each (name, argv) once, in order.
    measure(argv) returns a tuple of figures."""
    results = {name: [] for name, _ in commands}
    for _ in range(runs):
        for name, argv in commands:
            results[name].append(measure(argv))
    return results


def medians(figures):
    """The median of each figure over the rounds."""
    return tuple(statistics.median(f[i] for f in figures) for i in range(len(figures[0])))


def median_ratio(figures, peer, index=0):
    """The median over rounds of figures[round][index] / peer[round][index]."""
    ratios = [a[index] / b[index] for a, b in zip(figures, peer) if b[index]]
    return statistics.median(ratios) if ratios else float("nan")


def wall_rss(argv):
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        sys.exit("%s failed: status %d" % (argv[0], status))
    return (time.perf_counter() - start) * 1000, float(usage.ru_maxrss)


def peak_rss(argv):
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        try:
            with open("/proc/%d/status" % proc.pid) as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.2)
    return (peak / 1024.0,)


def restart(argv):
    with tempfile.NamedTemporaryFile(prefix="pai-stamps-", delete=False) as f:
        stamps = f.name
    try:
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=dict(os.environ, STAMPS=stamps))
        kill, last = None, None
        with open(stamps) as f:
            for line in f:
                words = line.split()
                if words[:1] == ["kill"]:
                    kill = int(words[1])
                elif words[:2] == ["start", "1"]:
                    last = max(last or 0, int(words[2]))
        if kill is None or last is None:
            sys.exit("%s: no kill or no restart in %s" % (argv[0], stamps))
        return ((last - kill) / 1e6,)
    finally:
        os.unlink(stamps)


MEASURES = {"wall-rss": wall_rss, "peak-rss": peak_rss, "restart": restart}


def parse_commands(words):
    commands, current = [], []
    for word in words + [":::"]:
        if word == ":::":
            if len(current) < 2:
                sys.exit("alternate.py: each command needs a NAME and a CMD")
            commands.append((current[0], current[1:]))
            current = []
        else:
            current.append(word)
    return commands


def main(argv):
    if len(argv) < 4 or argv[1] not in MEASURES:
        sys.exit(__doc__)
    commands = parse_commands(argv[3:])
    results = rounds(commands, int(argv[2]), MEASURES[argv[1]])
    first = commands[0][0]
    for name, _ in commands:
        print(name, " ".join("%.1f" % v for v in medians(results[name])))
    for name, _ in commands[1:]:
        count = len(results[name][0])
        print("ratio %s/%s %s" % (first, name, " ".join(
            "%.3g" % median_ratio(results[first], results[name], i) for i in range(count))))


if __name__ == "__main__":
    main(sys.argv)
