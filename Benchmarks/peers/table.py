"""Prints the table of Benchmarks/peers/run.sh from its results.tsv.

    python3 table.py build/results.tsv

Per row (operation, input) and program: the median over passes of the seconds per operation (each pass's
figure being that process's in-process median), the largest peak resident memory (VmHWM) of its passes, and
ratio = peer's time / ours (above 1: ours is faster). A program that refused the input, or does not do the
operation, says so; the reasons are listed under the table.
"""
import statistics
import sys
from collections import OrderedDict

PROGRAMS = ["ours", "libplist", "rust-plist", "plistlib", "bpylist2", "nska-deserialize", "pytypedstream"]


def duration(seconds):
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.1f} us"


def main(path):
    rows = OrderedDict()  # (operation, input) -> program -> list of records
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            record = dict(zip(header, line.rstrip("\n").split("\t")))
            rows.setdefault((record["operation"], record["input"]), {}).setdefault(record["program"], []).append(record)
    columns = [p for p in PROGRAMS if any(p in programs for programs in rows.values())]
    notes = []
    table = [["operation", "input"] + columns]
    for (op, label), programs in rows.items():
        cells = [op, label]
        ours = programs.get("ours", [])
        ours_seconds = statistics.median(float(r["seconds"]) for r in ours) if ours and all(r["status"] == "ok" for r in ours) else None
        for name in columns:
            records = programs.get(name)
            if not records:
                cells.append("")
                continue
            failed = [r for r in records if r["status"] != "ok"]
            if failed:
                note = failed[0]["note"].strip()
                note = note if len(note) <= 160 else note[:157] + "..."
                notes.append(f"[{len(notes) + 1}] {name}, {op} {label}: {note}")
                kind = failed[0]["status"]
                partly = f" ({len(failed)} of {len(records)} passes)" if len(failed) < len(records) else ""
                cells.append(f"{kind}{partly} [{len(notes)}]")
                continue
            seconds = statistics.median(float(r["seconds"]) for r in records)
            peak_mb = max(int(r["peak_kb"]) for r in records) / 1024
            cell = f"{duration(seconds)}, {peak_mb:.0f} MB"
            if name != "ours" and ours_seconds:
                cell += f", x{seconds / ours_seconds:.2f}"
            cells.append(cell)
        table.append(cells)
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = ["| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths)) + " |" for row in table]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    passes = len({r["pass"] for programs in rows.values() for records in programs.values() for r in records})
    print(f"Time per operation (median of {passes} passes), peak memory (VmHWM, largest of the passes), "
          "x ratio = peer time / ours (above 1: ours is faster)")
    print("\n".join(lines))
    counts = []
    for (op, label), programs in rows.items():
        ours = programs.get("ours", [{}])[0]
        for name, records in programs.items():
            r = records[0]
            if name != "ours" and r["status"] == "ok" and (r["samples"], r["ops_per_sample"]) != (ours.get("samples"), ours.get("ops_per_sample")):
                counts.append(f"{name}, {op} {label}: {r['samples']} sample(s) of {r['ops_per_sample']} operation(s) per "
                              f"pass (ours: {ours.get('samples')} of {ours.get('ops_per_sample')})")
    if notes or counts:
        print()
        print("\n".join(notes + counts))


if __name__ == "__main__":
    main(sys.argv[1])
