#!/usr/bin/env python3
"""Times out of pai-launch events.jsonl journals, for the multi-node benchmarks.

    event_times.py first|last|count EVENT [--attempt N] [--field KEY=VALUE] FILE...

first / last: the earliest / latest time of EVENT over all FILEs, in ms since the epoch
(events carry ISO UTC times with milliseconds); nothing is printed, and the exit status is 1,
when no file holds one. count: how many FILEs hold at least one EVENT. --attempt N keeps only
events after a "start" event of attempt N in the same file (a launcher journals "start" with
the attempt, then one "process-started" per rank); --field keeps only events whose KEY is
VALUE (compared as text). Missing or unreadable files count as holding nothing, so that a
caller may poll journals that launchers are still creating. Events and their fields are those of
docs/journal.md (schemas/journal.schema.json); a journal's first record, `journal`, is no event
any caller asks for.
"""
import argparse
import datetime
import json
import sys


def epoch_ms(text):
    stamp = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")
    return int(stamp.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000 + 0.5)


def matching_times(path, event, attempt, fields):
    """ms times of the matching events of one journal (empty when it is not readable yet)."""
    times = []
    current_attempt = None
    try:
        with open(path, encoding="utf-8", errors="replace") as journal:
            for line in journal:
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line being written right now
                if record.get("event") == "start" and "attempt" in record:
                    current_attempt = record["attempt"]
                if record.get("event") != event:
                    continue
                if attempt is not None and current_attempt != attempt:
                    continue
                if any(str(record.get(k)) != v for k, v in fields):
                    continue
                times.append(epoch_ms(record["time"]))
    except OSError:
        pass
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["first", "last", "count"])
    parser.add_argument("event")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--attempt", type=int)
    parser.add_argument("--field", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    fields = []
    for item in args.field:
        key, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--field {item}: expected KEY=VALUE")
        fields.append((key, value))
    per_file = [matching_times(f, args.event, args.attempt, fields) for f in args.files]
    if args.what == "count":
        print(sum(1 for t in per_file if t))
        return 0
    times = [t for ts in per_file for t in ts]
    if not times:
        return 1
    print(min(times) if args.what == "first" else max(times))
    return 0


if __name__ == "__main__":
    sys.exit(main())
