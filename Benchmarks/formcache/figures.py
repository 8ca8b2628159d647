#!/usr/bin/env python3
"""Issue 5 figures: whole-process timings of the release `formcache` binary.

  formcache add / get on a store of 10,000 records   (median; target < 25 ms each)
  formcache get on a store formcache did not write    (decoded in full; same target)
  formcache purge of 10,000 expired records           (median; target < 100 ms)

Usage:
  swift build -c release --product formcache
  python3 Benchmarks/formcache/figures.py [--runs 21] [--bin .build/release/formcache]

The 10,000-record stores are written directly as keyed archives (plistlib, UIDs) in the same layout that
ArchiveRepository writes (ArchiveRepositoryFile {version, records: [FormRecord]}), so that setting up does
not take 10,000 process launches. Each timing is one whole process: spawn, read, decode, write, fsync, exit.

`get` and `add` are timed on the store as formcache leaves it after a write (one add and one remove first):
then `get` decodes only the record it returns and `add` appends in place. `get-foreign-store` is `get` on
the plistlib-written file, which formcache did not write last, so it is decoded in full (as any store
damaged or changed by another program is). `purge` always decodes and writes in full.
"""
import argparse, os, plistlib, shutil, statistics, subprocess, tempfile, time

REFERENCE = 978307200.0  # NSDate reference date in Unix seconds


def keyed_store(count, registered, expires):
    objects = ["$null"]

    def add(value):
        objects.append(value)
        return plistlib.UID(len(objects) - 1)

    root = {"$class": None}
    root_uid = add(root)
    file_class = add({"$classname": "ArchiveRepositoryFile", "$classes": ["ArchiveRepositoryFile", "NSObject"]})
    array_class = add({"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]})
    dict_class = add({"$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]})
    date_class = add({"$classname": "NSDate", "$classes": ["NSDate", "NSObject"]})
    record_class = add({"$classname": "FormRecord", "$classes": ["FormRecord", "NSObject"]})
    key_email = add("email")
    uids = []
    for i in range(count):
        record = {"$class": record_class}
        uid = add(record)
        record["id"] = add(f"00000000-0000-4000-8000-{i:012d}")
        record["name"] = add(f"form-{i}")
        record["fields"] = add({"$class": dict_class, "NS.keys": [key_email], "NS.objects": [add(f"user{i}@example.com")]})
        record["registeredAt"] = add({"$class": date_class, "NS.time": registered - REFERENCE})
        record["expiresAt"] = add({"$class": date_class, "NS.time": expires - REFERENCE})
        uids.append(uid)
    root.update({"$class": file_class, "version": 1, "records": add({"$class": array_class, "NS.objects": uids})})
    archive = {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": root_uid}, "$objects": objects}
    return plistlib.dumps(archive, fmt=plistlib.FMT_BINARY, sort_keys=False)


def timed(binary, env, *args):
    start = time.perf_counter()
    done = subprocess.run([binary, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise SystemExit(f"formcache {' '.join(args)}: status {done.returncode}: {done.stderr.decode()}")
    return elapsed, done.stdout.decode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--bin", default=".build/release/formcache")
    parser.add_argument("--count", type=int, default=10_000)
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="formcache-figures-")
    home = os.path.join(work, "home")
    env = dict(os.environ, FORMCACHE_HOME=home)
    os.makedirs(home, mode=0o700)
    store = os.path.join(home, "FormCache.cache")
    now = time.time()
    try:
        live = keyed_store(options.count, now, now + 30 * 86400)
        with open(store, "wb") as f:
            f.write(live)
        os.chmod(store, 0o600)
        print(f"store: {options.count} records, {len(live)} bytes")
        def get_runs():
            return [timed(options.bin, env, "get", f"00000000-0000-4000-8000-{i * 37 % options.count:012d}")[0]
                    for i in range(options.runs)]
        # A store formcache did not write last (no digest in the lock file): read and decoded in full.
        foreign_gets = get_runs()
        # One add and one remove: formcache writes the store (and records its digest), as after any use.
        _, out = timed(options.bin, env, "add", "--name", "warm-up")
        timed(options.bin, env, "remove", out.strip())
        gets = get_runs()
        adds = []
        for i in range(options.runs):
            elapsed, out = timed(options.bin, env, "add", "--name", f"bench-{i}", "--field", "k=v")
            adds.append(elapsed)
            timed(options.bin, env, "remove", out.strip())
        expired = keyed_store(options.count, now - 2 * 86400, now - 86400)
        purges = []
        for _ in range(options.runs):
            with open(store, "wb") as f:
                f.write(expired)
            elapsed, out = timed(options.bin, env, "purge")
            assert len(out.splitlines()) == options.count, "purge did not remove every record"
            purges.append(elapsed)
        for op, samples in (("get", gets), ("add", adds), ("purge", purges), ("get-foreign-store", foreign_gets)):
            print(f"RESULT op={op} n={options.count} runs={options.runs} median_ms={statistics.median(samples):.1f} "
                  f"min_ms={min(samples):.1f} max_ms={max(samples):.1f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
