#!/usr/bin/env python3
"""python-diskcache 5.6 replaying the plan that `keyed-bench cache` wrote.

Usage: diskcache_peer.py <plan-directory> <work-directory>

Reads the keys, values and operation sequences of the plan (see CachePlan.swift for the files) and prints
the same RESULT lines as the Swift side, with impl=diskcache, on stdout; progress goes to stderr.

Every cache is `diskcache.Cache(directory, eviction_policy="least-recently-used", size_limit=...)`:
- set-relaxed, get-memory, mixed: size_limit = the plan's byte limit (half the working set);
- set-synchronous: the same with sqlite_synchronous=2 (FULL: the write-ahead log is fsynced per commit);
- get-disk: no limit (every key present), as on the Swift side.
diskcache has no memory layer of its own: get-memory and get-disk are both its ordinary hits (SQLite over
the page cache); get-memory reads the small hot set, get-disk the whole working set.
"""

import json
import os
import shutil
import struct
import sys
import time

import diskcache

NO_LIMIT = 2**62


def progress(message):
    print(f"cache-bench: diskcache: {message}", file=sys.stderr, flush=True)


def read_u32(path):
    with open(path, "rb") as f:
        data = f.read()
    return list(struct.unpack(f"<{len(data) // 4}I", data))


class Plan:
    def __init__(self, directory):
        with open(os.path.join(directory, "params.json")) as f:
            self.params = json.load(f)
        with open(os.path.join(directory, "keys.txt"), encoding="utf-8") as f:
            self.keys = f.read().split("\n")
        lengths = read_u32(os.path.join(directory, "values.len"))
        with open(os.path.join(directory, "values.bin"), "rb") as f:
            blob = f.read()
        self.values = []
        offset = 0
        for n in lengths:
            self.values.append(blob[offset:offset + n])
            offset += n
        assert len(self.values) == len(self.keys) == self.params["keys"]
        self.byte_limit = self.params["byte_limit"]
        self.mixed_warmup = self.params["mixed_warmup"]
        self.open_entries = self.params["open_entries"]
        self.seq = {
            name: read_u32(os.path.join(directory, name + ".u32"))
            for name in ("set-relaxed", "set-synchronous", "hot", "get-memory", "get-disk", "mixed", "open-probe")
        }


def timed(indices, body):
    """Runs body(i) for each i, timing every call; returns (n, ops/s, p50 us, p99 us)."""
    clock = time.perf_counter_ns
    latencies = [0] * len(indices)
    start = clock()
    for j, k in enumerate(indices):
        t0 = clock()
        body(k)
        latencies[j] = clock() - t0
    total = clock() - start
    return summarize(latencies, total)


def summarize(latencies, total_ns):
    latencies.sort()
    n = len(latencies)

    def percentile(p):
        if not n:
            return float("nan")
        index = min(n - 1, max(0, -(-n * p // 1) - 1))
        return latencies[int(index)] / 1e3

    mean = sum(latencies) / n / 1e3 if n else float("nan")
    ops = n / (total_ns / 1e9) if total_ns else float("nan")
    return n, ops, percentile(0.50), percentile(0.99), (mean, percentile(0.999), percentile(1.0))


def emit(op, timing=None, **fields):
    line = f"RESULT impl=diskcache op={op}"
    detail = None
    if timing is not None:
        n, ops, p50, p99, (mean, p999, top) = timing
        line += f" n={n} ops_per_s={ops:.0f} p50_us={p50:.2f} p99_us={p99:.2f}"
        detail = f"DETAIL impl=diskcache op={op} mean_us={mean:.2f} p999_us={p999:.2f} max_us={top:.2f}"
    for key, value in fields.items():
        line += f" {key}={value}"
    print(line, flush=True)
    if detail:
        print(detail, flush=True)


def open_cache(directory, size_limit, **settings):
    return diskcache.Cache(directory, eviction_policy="least-recently-used", size_limit=size_limit, **settings)


def disk_usage(path):
    """Regular files (count, sizes, allocated blocks) and du: every file's and directory's blocks, path's own too."""
    files = size = allocated = 0
    du = os.lstat(path).st_blocks * 512
    for folder, folders, names in os.walk(path):
        for name in folders:
            du += os.lstat(os.path.join(folder, name)).st_blocks * 512
        for name in names:
            info = os.lstat(os.path.join(folder, name))
            files += 1
            size += info.st_size
            allocated += info.st_blocks * 512
            du += info.st_blocks * 512
    return files, size, allocated, du


def main():
    plan_directory, work = sys.argv[1], sys.argv[2]
    plan = Plan(plan_directory)
    keys, values = plan.keys, plan.values
    os.makedirs(work, exist_ok=True)
    miss = object()

    progress("set-relaxed")
    path = os.path.join(work, "set-relaxed")
    with open_cache(path, plan.byte_limit) as cache:
        emit("set-relaxed", timed(plan.seq["set-relaxed"], lambda k: cache.set(keys[k], values[k])))
    shutil.rmtree(path)

    progress("set-synchronous (sqlite_synchronous=2, FULL)")
    path = os.path.join(work, "set-synchronous")
    with open_cache(path, plan.byte_limit, sqlite_synchronous=2) as cache:
        emit("set-synchronous", timed(plan.seq["set-synchronous"], lambda k: cache.set(keys[k], values[k])))
    shutil.rmtree(path)

    progress("get-memory (its ordinary hits on the hot keys)")
    path = os.path.join(work, "get-memory")
    with open_cache(path, plan.byte_limit) as cache:
        for k in plan.seq["hot"]:
            cache.set(keys[k], values[k])
        for k in plan.seq["hot"]:
            cache.get(keys[k])
        misses = [0]

        def get(k):
            if cache.get(keys[k], miss) is miss:
                misses[0] += 1

        emit("get-memory", timed(plan.seq["get-memory"], get))
        if misses[0]:
            progress(f"get-memory: {misses[0]} unexpected misses")
    shutil.rmtree(path)

    progress("get-disk (all keys, no limit)")
    path = os.path.join(work, "get-disk")
    with open_cache(path, NO_LIMIT) as cache:
        for k in range(len(keys)):
            cache.set(keys[k], values[k])
        misses = [0]

        def get(k):
            if cache.get(keys[k], miss) is miss:
                misses[0] += 1

        emit("get-disk", timed(plan.seq["get-disk"], get))
        if misses[0]:
            progress(f"get-disk: {misses[0]} unexpected misses")
    shutil.rmtree(path)

    progress("mixed")
    path = os.path.join(work, "mixed")
    with open_cache(path, plan.byte_limit) as cache:
        ops = plan.seq["mixed"]
        for op in ops[:plan.mixed_warmup]:
            k = op & 0x7FFFFFFF
            if op >> 31 or cache.get(keys[k], miss) is miss:
                cache.set(keys[k], values[k])
        gets = [0, 0]  # reads, hits

        def step(op):
            k = op & 0x7FFFFFFF
            if op >> 31:
                cache.set(keys[k], values[k])
            else:
                gets[0] += 1
                if cache.get(keys[k], miss) is miss:
                    cache.set(keys[k], values[k])
                else:
                    gets[1] += 1

        emit("mixed", timed(ops[plan.mixed_warmup:], step))
        emit("hit-ratio", value=f"{gets[1] / gets[0]:.4f}" if gets[0] else "nan")
        files, size, allocated, du = disk_usage(path)
        emit("bytes-on-disk", du=du, du_ratio=f"{du / plan.byte_limit:.3f}", entries=len(cache), volume=cache.volume(),
             files=files, file_bytes=size, allocated_bytes=allocated, limit=plan.byte_limit)
    shutil.rmtree(path)

    probe = plan.seq["open-probe"]
    if plan.open_entries > 0 and probe:
        count = plan.open_entries
        path = os.path.join(work, "open")
        progress(f"building a cache of {count} entries")
        start = time.perf_counter()
        with open_cache(path, NO_LIMIT) as cache:
            batch = 10_000
            for first in range(0, count, batch):
                with cache.transact():
                    for i in range(first, min(count, first + batch)):
                        key = f"open-{i}"
                        cache.set(key, key.encode())
        build = time.perf_counter() - start
        files, size, _, _ = disk_usage(path)
        t0 = time.perf_counter_ns()
        cache = open_cache(path, NO_LIMIT)
        open_ns = time.perf_counter_ns() - t0
        first_key = f"open-{probe[0]}"
        t0 = time.perf_counter_ns()
        value = cache.get(first_key)
        first_ns = time.perf_counter_ns() - t0
        assert value == first_key.encode(), (first_key, value)
        warm_keys = [f"open-{i}" for i in probe[1:]]
        _, _, warm_p50, warm_p99, _ = timed(range(len(warm_keys)), lambda j: cache.get(warm_keys[j]))
        cache.close()
        emit("first-get-1m", entries=count, open_ms=f"{open_ns / 1e6:.2f}", first_us=f"{first_ns / 1e3:.2f}",
             warm_us=f"{warm_p50:.2f}", warm_p99_us=f"{warm_p99:.2f}", first_over_warm=f"{first_ns / 1e3 / warm_p50:.2f}",
             build_s=f"{build:.1f}", files=files, file_bytes=size)
        shutil.rmtree(path)


if __name__ == "__main__":
    main()
