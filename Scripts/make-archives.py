#!/usr/bin/env python3
"""Writes keyed archives for the inspector's tests and figures, with Python's plistlib (standard library only).

    Scripts/make-archives.py fixtures            # Fixtures/inspector/{nested-archive,deep-chain,shared-cycle,
                                                 #   scn-archiver}.plist
    Scripts/make-archives.py shared N OUT        # N objects all shared (benchmark input), binary

Every archive is an NSKeyedArchiver archive ($version 100000, $objects[0] == "$null"); plistlib writes the
binary plist, so the bytes are neither Apple's nor this package's writer's.
"""
import os
import plistlib
import sys

UID = plistlib.UID


class Archive:
    """$objects built one entry at a time; classes described once."""

    def __init__(self):
        self.objects = ["$null"]
        self.classes = {}

    def add(self, value):
        self.objects.append(value)
        return UID(len(self.objects) - 1)

    def cls(self, name, supers=()):
        if name not in self.classes:
            self.classes[name] = self.add({"$classname": name, "$classes": [name, *supers, "NSObject"]})
        return self.classes[name]

    def obj(self, name, fields, supers=()):
        uid = self.add(None)
        entry = dict(fields)
        entry["$class"] = self.cls(name, supers)
        self.objects[uid.data] = entry
        return uid

    def array(self, items, name="NSArray"):
        return self.obj(name, {"NS.objects": list(items)})

    def dump(self, root, top_key="root"):
        return plistlib.dumps({"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {top_key: root},
                               "$objects": self.objects}, fmt=plistlib.FMT_BINARY, sort_keys=False)


def nested_archive():
    """An Envelope whose data fields hold keyed archives, one of which holds another (three levels)."""
    inner = Archive()
    url = inner.obj("NSURL", {"NS.base": UID(0), "NS.relative": inner.add("file:///etc/passwd")})
    innermost = inner.dump(inner.obj("Secret", {"location": url}))

    middle = Archive()
    predicate = middle.obj("NSComparisonPredicate", {"NSPredicateOperator": UID(0)}, ("NSPredicate",))
    middle_bytes = middle.dump(middle.obj("Wrapper", {"blob": innermost, "filter": predicate}))

    outer = Archive()
    data = outer.obj("NSData", {"NS.data": innermost})
    items = outer.array([data, outer.add("text")])
    root = outer.obj("Envelope", {"payload": middle_bytes, "items": items, "note": outer.add("not an archive")})
    return outer.dump(root)


def deep_chain(depth=600):
    """A chain of `depth` Link objects, deeper than NSKeyedUnarchiver's usual limits."""
    a = Archive()
    cls = a.cls("Link")
    first = len(a.objects)
    for i in range(depth):
        entry = {"n": i, "$class": cls}
        if i + 1 < depth:
            entry["next"] = UID(first + i + 1)
        a.add(entry)
    return a.dump(UID(first))


def shared_cycle():
    """A Graph whose nodes share one Style and point back to their owner (cycles), with a sort descriptor."""
    a = Archive()
    graph_uid = a.add(None)
    style = a.obj("Style", {"color": a.add("red")})
    nodes = [a.obj("Node", {"owner": graph_uid, "style": style, "n": i}) for i in range(4)]
    sort = a.obj("NSSortDescriptor", {"NSKey": a.add("n"), "NSAscending": True,
                                      "NSSelector": a.add("compare:")})
    a.objects[graph_uid.data] = {"nodes": a.obj("NSMutableArray", {"NS.objects": nodes}, ("NSArray",)), "sort": sort, "$class": a.cls("Graph")}
    return a.dump(graph_uid)


def shared(n):
    """A root array of n Item objects, each referenced twice (from the array and from the next item), all
    sharing one Style: n + 2 shared objects."""
    a = Archive()
    style = a.obj("Style", {"name": a.add("plain")})
    cls = a.cls("Item")
    first = len(a.objects)
    for i in range(n):
        entry = {"n": i, "style": style, "$class": cls}
        if i + 1 < n:
            entry["next"] = UID(first + i + 1)
        a.add(entry)
    root = a.array([UID(first + i) for i in range(n)])
    return a.dump(root)


def scn_archiver(here):
    """Fixtures/keyed/kiler129-NSKeyedUnarchiver/reference.bin.plist with $archiver rewritten to "SCNKeyedArchiver"
    (SceneKit's NSKeyedArchiver subclass), everything else as plistlib reads it."""
    with open(os.path.join(here, "..", "Fixtures", "keyed", "kiler129-NSKeyedUnarchiver", "reference.bin.plist"), "rb") as f:
        archive = plistlib.load(f)
    archive["$archiver"] = "SCNKeyedArchiver"
    return plistlib.dumps(archive, fmt=plistlib.FMT_BINARY, sort_keys=False)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    if len(sys.argv) >= 2 and sys.argv[1] == "fixtures":
        out = os.path.join(here, "..", "Fixtures", "inspector")
        os.makedirs(out, exist_ok=True)
        for name, data in [("nested-archive.plist", nested_archive()), ("deep-chain.plist", deep_chain()),
                           ("shared-cycle.plist", shared_cycle()), ("scn-archiver.plist", scn_archiver(here))]:
            with open(os.path.join(out, name), "wb") as f:
                f.write(data)
    elif len(sys.argv) == 4 and sys.argv[1] == "shared":
        with open(sys.argv[3], "wb") as f:
            f.write(shared(int(sys.argv[2])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
