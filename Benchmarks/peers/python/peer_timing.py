"""The timing loop every Python peer driver shares (Benchmarks/peers/run.sh).

    python <driver>.py <operation> <input> <repeats> [<inner>]

Reads <input> whole (for typedstream-decode, a folder: every file not ending in .json, sorted by name),
runs the operation once untimed (a refused input fails here), then takes <repeats> samples of <inner> (1)
operations each with time.perf_counter and prints the median seconds per operation and the peak resident
memory (VmHWM), in the line our driver (keyed-bench peer-driver) prints. Whatever an operation makes is freed
inside its timing. Exit status 1: the input was refused (the reason on stderr); 3: the peer does not do this
operation; 64: usage.
"""
import os
import statistics
import sys
import time


def peak_kb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def read_inputs(path, folder):
    if folder and os.path.isdir(path):
        names = sorted(n for n in os.listdir(path) if not n.endswith(".json"))
        return [open(os.path.join(path, n), "rb").read() for n in names]
    return [open(path, "rb").read()]


def main(operations, does_not=None):
    """operations: name -> function(inputs) returning the body to time; does_not: name -> why not."""
    args = sys.argv[1:]
    if len(args) not in (3, 4):
        sys.exit(f"Usage: {sys.argv[0]} <operation> <input> <repeats> [<inner>]")
    op, path, repeats, inner = args[0], args[1], int(args[2]), int(args[3]) if len(args) == 4 else 1
    if op not in operations:
        print((does_not or {}).get(op, f"does not do {op}"), file=sys.stderr)
        sys.exit(3)
    inputs = read_inputs(path, op == "typedstream-decode")
    try:
        body = operations[op](inputs)
        body()
    except Exception as error:  # the peer refused the input: say what it said
        print(f"{type(error).__name__}: {str(error)[:200]}", file=sys.stderr)
        sys.exit(1)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            body()
        samples.append((time.perf_counter() - start) / inner)
    print(f"PEER op={op} seconds={statistics.median(samples):.9f} peak_kb={peak_kb()} "
          f"repeats={repeats} inner={inner} input_bytes={sum(map(len, inputs))}")
