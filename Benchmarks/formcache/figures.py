#!/usr/bin/env python3
"""Whole-process timings of the release `formcache` binary on stores of 10,000 to 1,000,000 records.

For each count N (default 10,000, 100,000 and 1,000,000), on one store of N records of which one in ten has
expired:

  get / add / update / remove     median of --runs whole processes (target: < 25 ms, and at 1,000,000
                                  within 1.5x of the same operation at 10,000)
  list --json > /dev/null         peak RSS of the process (target: at 1,000,000 at most 2x that at 10,000)
  purge                           the N/10 expired records (target: 100,000 among 1,000,000 in < 2 s)
  first write after an outside    the store written by this script has no index; the first write builds it
  writer, first get before it     (once), and a get before that scans the log

Usage:
  swift build -c release --product formcache
  python3 Benchmarks/formcache/figures.py [--counts 10000,100000,1000000] [--runs 21] [--bin .build/release/formcache]
                                          [--log-format 2]

The stores are written by this script directly in the record-log format (documented in
Sources/ArchiveStore/Repository/RecordLog.swift; --log-format 1 writes the format before the frames' checksum
chain, which builds before it read, and which a writer of this build rewrites on its first change), each record
an ordinary keyed archive made with plistlib,
so that setting up does not take N process launches; this also checks that the format can be written
without the library. Each timing is one whole process: spawn, open, read, write, fsync, exit.
"""
import argparse, os, plistlib, shutil, statistics, struct, subprocess, tempfile, time, zlib

REFERENCE = 978307200.0  # NSDate reference date in Unix seconds
SLOT = struct.Struct("<7QII")


def record_template(registered, expires):
    """A FormRecord keyed archive whose id, name and email are placeholders of fixed width."""
    objects = ["$null"]

    def add(value):
        objects.append(value)
        return plistlib.UID(len(objects) - 1)

    record = {}
    root = add(record)
    record_class = add({"$classname": "FormRecord", "$classes": ["FormRecord", "NSObject"]})
    dict_class = add({"$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]})
    date_class = add({"$classname": "NSDate", "$classes": ["NSDate", "NSObject"]})
    record.update({
        "$class": record_class,
        "id": add("00000000-0000-4000-8000-ZZZZZZZZZZZZ"),
        "name": add("form-YYYYYYY"),
        "fields": add({"$class": dict_class, "NS.keys": [add("email")], "NS.objects": [add("userXXXXXXX@example.com")]}),
        "registeredAt": add({"$class": date_class, "NS.time": registered - REFERENCE}),
        "expiresAt": add({"$class": date_class, "NS.time": expires - REFERENCE}),
    })
    archive = {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": root}, "$objects": objects}
    return plistlib.dumps(archive, fmt=plistlib.FMT_BINARY, sort_keys=False)


def record_id(i):
    return f"00000000-0000-4000-8000-{i:012d}"


def frame(i, template, expires):
    key = record_id(i).encode()
    payload = (template.replace(b"ZZZZZZZZZZZZ", b"%012d" % i).replace(b"YYYYYYY", b"%07d" % i)
               .replace(b"XXXXXXX", b"%07d" % i))
    head = struct.pack("<IBBHd", 24 + len(key) + len(payload), 1, 0, len(key), expires)
    crc = zlib.crc32(payload, zlib.crc32(key, zlib.crc32(b"\0\0\0\0", zlib.crc32(head))))
    return head + struct.pack("<II", crc, 0) + key + payload


LOG_FORMAT = 2


def write_store(path, count, now, superseded=False):
    """A record log of `count` records; records 0, 10, 20 ... expired a day ago, the others live. With
    `superseded`, every record is written twice (the first copies dead) and one delete frame follows, so that
    the dead bytes just outweigh the live ones and the next write compacts the log."""
    live_expiry, dead_expiry = now + 30 * 86400, now - 86400
    live, dead = record_template(now, live_expiry), record_template(now - 2 * 86400, dead_expiry)
    generation = 0x5EED_F16E
    with open(path, "wb") as f:
        f.write(b"\0" * 256)
        committed, live_bytes = 256, 0
        chunk = []
        frames = 0
        chain = 0   # format 2: the CRC-32 of the frames' checksums, each as four little-endian bytes

        def add(data):
            nonlocal chain
            chain = zlib.crc32(data[16:20], chain)
            chunk.append(data)
        for copy in range(2 if superseded else 1):
            for i in range(count):
                expired = i % 10 == 0
                data = frame(i, dead if expired else live, dead_expiry if expired else live_expiry)
                add(data)
                committed += len(data)
                frames += 1
                if copy == (1 if superseded else 0):
                    live_bytes += len(data)
                if len(chunk) == 4096:
                    f.write(b"".join(chunk))
                    chunk = []
        if superseded:
            gone = b"gone-" + b"x" * 2_000   # a long key: the dead bytes outweigh the live ones after one more add
            head = struct.pack("<IBBHd", 24 + len(gone), 2, 0, len(gone), float("nan"))
            crc = zlib.crc32(gone, zlib.crc32(b"\0\0\0\0", zlib.crc32(head)))
            add(head + struct.pack("<II", crc, 0) + gone)
            committed += 24 + len(gone)
            frames += 1
        f.write(b"".join(chunk))
        header = b"ARCHLOG1" + struct.pack("<IIQ", LOG_FORMAT, 0, generation)
        header += struct.pack("<I", zlib.crc32(header)) + b"\0" * 36
        slot = struct.pack("<7Q", 0, committed, frames, count, live_bytes, 1, generation)
        if LOG_FORMAT == 1:
            slot += struct.pack("<II", zlib.crc32(slot), 0)
        else:
            slot += struct.pack("<I", chain)
            slot += struct.pack("<I", zlib.crc32(slot))
        f.seek(0)
        f.write(header + slot)
    os.chmod(path, 0o600)
    return committed


def run(binary, env, *args):
    """Runs one formcache process; returns (milliseconds, stdout text)."""
    start = time.perf_counter()
    done = subprocess.run([binary, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise SystemExit(f"formcache {' '.join(args)}: status {done.returncode}: {done.stderr.decode()}")
    return elapsed, done.stdout.decode()


def peak_rss(binary, env, *args):
    """Peak RSS (KiB) of one process whose stdout goes to /dev/null, by GNU time: the rusage that this script
    could read itself starts from the memory of the forked Python process."""
    with tempfile.NamedTemporaryFile("r") as report, open(os.devnull, "wb") as null:
        done = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name, binary, *args], env=env, stdout=null,
                              stderr=subprocess.PIPE)
        if done.returncode != 0:
            raise SystemExit(f"formcache {' '.join(args)} failed: {done.stderr.decode()}")
        return int(report.read().split()[-1])


def result(op, count, samples, unit="ms"):
    if unit == "ms":
        print(f"RESULT op={op} n={count} runs={len(samples)} median_ms={statistics.median(samples):.1f} "
              f"min_ms={min(samples):.1f} max_ms={max(samples):.1f}", flush=True)
    else:
        print(f"RESULT op={op} n={count} runs={len(samples)} median_kib={statistics.median(samples):.0f} "
              f"max_kib={max(samples):.0f}", flush=True)


def measure(binary, count, runs, work):
    home = os.path.join(work, f"home-{count}")
    os.makedirs(home, mode=0o700)
    env = dict(os.environ, FORMCACHE_HOME=home)
    store = os.path.join(home, "FormCache.cache")
    now = time.time()
    started = time.perf_counter()
    size = write_store(store, count, now)
    print(f"store: {count} records, {size} bytes, written in {time.perf_counter() - started:.1f} s", flush=True)
    live_ids = [record_id(i) for i in range(count) if i % 10 != 0]
    # A store with no index: the first get scans the log; the first write builds the index.
    first_get, _ = run(binary, env, "get", live_ids[len(live_ids) // 2])
    first_write, out = run(binary, env, "add", "--name", "warm-up")
    run(binary, env, "remove", out.strip())
    result("first-get-without-index", count, [first_get])
    result("first-write-building-index", count, [first_write])
    step = max(1, len(live_ids) // (4 * runs))
    gets = [run(binary, env, "get", live_ids[(i * 7919) % len(live_ids)])[0] for i in range(runs)]
    adds, removes, updates = [], [], []
    for i in range(runs):
        elapsed, out = run(binary, env, "add", "--name", f"bench-{i}", "--field", "k=v")
        adds.append(elapsed)
        updates.append(run(binary, env, "update", out.strip(), "--name", f"bench-{i}-b", "--field", "k=w")[0])
        removes.append(run(binary, env, "remove", live_ids[1 + i * step])[0])
    result("get", count, gets)
    result("add", count, adds)
    result("update", count, updates)
    result("remove", count, removes)
    result("list-json-peak-rss", count, [peak_rss(binary, env, "list", "--json") for _ in range(3)], unit="kib")
    # 1,100 adds in a row: one of them merges the index (every 1,024 writes).
    burst = sorted(run(binary, env, "add", "--name", f"burst-{i}")[0] for i in range(1_100))
    print(f"RESULT op=add-1100-in-a-row n={count} median_ms={statistics.median(burst):.1f} "
          f"p99_ms={burst[int(len(burst) * 0.99)]:.1f} max_ms={burst[-1]:.1f}", flush=True)
    # purge: the N/10 expired records, on copies of the store as it is now (its index built).
    template = os.path.join(work, "purge-template")
    os.makedirs(template, exist_ok=True)
    for name in ("FormCache.cache", "FormCache.cache.index"):
        shutil.copy(os.path.join(home, name), os.path.join(template, name))
    purges = []
    for _ in range(3 if count >= 1_000_000 else 5):
        for name in ("FormCache.cache", "FormCache.cache.index"):
            shutil.copy(os.path.join(template, name), os.path.join(home, name))
        elapsed, out = run(binary, env, "purge")
        assert len(out.splitlines()) == count // 10 + (1 if count % 10 else 0), "purge removed another number"
        purges.append(elapsed)
    result("purge-expired-tenth", count, purges)
    shutil.rmtree(template, ignore_errors=True)
    shutil.rmtree(home, ignore_errors=True)
    # Compaction: a log whose dead frames just outweigh its live ones; the next write rewrites it.
    os.makedirs(home, mode=0o700)
    size = write_store(store, count, now, superseded=True)
    elapsed, out = run(binary, env, "add", "--name", "compacting")
    after = os.path.getsize(store)
    print(f"RESULT op=write-compacting-the-log n={count} median_ms={elapsed:.1f} log_bytes_before={size} "
          f"log_bytes_after={after}", flush=True)
    shutil.rmtree(home, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--bin", default=".build/release/formcache")
    parser.add_argument("--counts", default="10000,100000,1000000")
    parser.add_argument("--log-format", type=int, choices=(1, 2), default=2)
    options = parser.parse_args()
    global LOG_FORMAT
    LOG_FORMAT = options.log_format
    work = tempfile.mkdtemp(prefix="formcache-figures-")
    try:
        for count in [int(c) for c in options.counts.split(",")]:
            measure(options.bin, count, options.runs, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
