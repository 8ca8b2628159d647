#!/usr/bin/env python3
"""The typedstream oracle: pytypedstream's reading of the fixtures, and a comparison with ours.

Run it through Scripts/typedstream-oracle.sh, which installs the pinned pytypedstream (0.1.0) into a virtual
environment and passes --root (the package root). Python 3.8+, standard library plus pytypedstream.

Modes:
  (none)           For every typedstream under Fixtures/typedstream/ (a file that starts with
                   "\\x04\\x0bstreamtyped" or "\\x04\\x0btypedstream"; licenses and renderings are skipped), read it
                   with pytypedstream's high-level Unarchiver (decode_all) and write <fixture>.pytypedstream.json
                   beside it. Prints one line per fixture (`wrote <path>` or `wrote <path> (pytypedstream: <error>)`)
                   and `ORACLE rendered=N failed=K`.
  --check          Render in memory and compare with the committed .pytypedstream.json files: one line per fixture
                   that differs, then `ORACLE fixtures=N unchanged=M changed=K`; exit 1 when one differs.
  --compare BIN    For every fixture run `BIN decode <fixture>` (our inspector's archive-JSON tree form) and compare
                   its normalized form with pytypedstream's. One line per fixture:
                     ORACLE <path> match [shallow=S]            the same values (S objects of classes other than
                                                                 Foundation's were compared by class name only)
                     ORACLE <path> match (both refuse)          a fixture under broken/ that both fail to read
                     ORACLE <path> MISMATCH <first difference>  a JSON path and both values, or who failed
                     ORACLE <path> unchecked (pytypedstream cannot read it: <error>; ours ...)
                                                                 a valid stream past pytypedstream 0.1.0 (an
                                                                 int64 0x87 tag, a nib it is too strict for)
                   then `ORACLE fixtures=N match=M mismatch=K unchecked=U`; exit 1 when K > 0.
  --self-test BIN  Test the normalizer of our JSON on keyed NSAttributedString fixtures (Fixtures/keyed/...):
                   `BIN decode` of each is normalized and checked against runs written out by hand here.

The rendering (<fixture>.pytypedstream.json), one JSON document:
  {"file": path, "reader": "pytypedstream 0.1.0", "byteOrder": "little"|"big", "streamerVersion": 4,
   "systemVersion": n, "classVersions": {name: version, ...} (every class the stream names, first seen version;
   a list when one name comes with several), "roots": [root, ...]}  or, when pytypedstream fails,
  {"file": ..., "reader": ..., "error": "<exception type>: <message>"}.
  A root is {"type": encoding, "value": V} (one value; objects add "classes": [[name, version], ...], the
  class chain from the class itself to its root class), or {"types": [...], "values": [V, ...]} for a group.
  V, for the classes pytypedstream knows the meaning of (as our archive-JSON tree form writes them):
    NSString/NSMutableString: a string; NSNumber: an integer, or {"real": x} ("nan", "inf", "-inf" as strings);
    NSData/NSMutableData: {"data": hex}; NSArray/NSMutableArray: [V, ...]; NSSet/NSMutableSet: {"set": [...]};
    NSDictionary/NSMutableDictionary: {"dict": {key: V}} in stream order, {"dict": [[K, V], ...]} when a key is
    not a string; NSDate: {"date": seconds since 2001-01-01}; NSURL: {"url": absolute string}; NSNull and nil:
    null; NSAttributedString/NSMutableAttributedString (which pytypedstream 0.1.0 reads only as generic
    contents; decoded here): {"class": name, "string": s, "runs": [{"location": L, "length": N,
    "attributes": {key: V}}, ...]} with L and N in UTF-16 units, the runs as stored (not merged).
  Other classes: {"class": name, "fields": {attribute: V}} with pytypedstream's Python attribute names (its
  AppKit/NeXTSTEP readers), or, for a class pytypedstream does not know, {"class": name, "super": {...known
  superclass part...}, "contents": [typed value, ...]}; a typed value is {"type": e, "value": V} or {"types":
  [...], "values": [...]}. C values: {"cstring": text} (or {"bytes": hex} when not UTF-8), {"carray": [...]}
  ({"carray": hex} for bytes), {"struct": name, "fields": [...]}, {"classref": name}, {"selector": name}.
  A reference back to an object still being rendered (a cycle) is {"ref": class name}; other shared objects
  are rendered in full at each use, as in our tree form.

Normalizing for --compare (both sides): booleans become integers (a typedstream NSNumber of type 'c' is 0/1);
dictionaries become their [key, value] pairs sorted by JSON text, sets their members sorted; data is hex;
a keyed NSAttributedString ({"class", "fields": {NSString, NSAttributeInfo, NSAttributes}}) becomes the
{"class", "string", "runs"} above (NSAttributeInfo: varint pairs of run length and attribute index; without
it, one run of NSAttributes); any other object is compared by class name only ("shallow"). Several roots
compare with our {"$top": {...}} values in key order ($0, $1, ... by number); one root with our document.
"""

import argparse
import base64
import collections
import collections.abc
import enum
import json
import math
import os
import pathlib
import subprocess
import sys
import urllib.parse

import typedstream
from typedstream import archiving
from typedstream import stream as ts_stream
from typedstream.types import foundation

MAGICS = (b"\x04\x0bstreamtyped", b"\x04\x0btypedstream")
FIXTURES = pathlib.Path("Fixtures") / "typedstream"
SUFFIX = ".pytypedstream.json"
READER = f"pytypedstream {typedstream.__version__}"
ATTRIBUTED = ("NSAttributedString", "NSMutableAttributedString")


def fixture_paths(root):
    found = []
    for path in sorted((root / FIXTURES).rglob("*")):
        if path.is_file() and not path.name.endswith(".json"):
            with open(path, "rb") as f:
                if f.read(13) in MAGICS:
                    found.append(path)
    return found


# ---- pytypedstream's reading, rendered ------------------------------------------------------------------------

class Recorder:
    """Remembers the archived class of every object pytypedstream instantiates (it keeps it only for
    generic objects), by wrapping archiving.instantiate_archived_class; it changes nothing it returns."""

    def __init__(self):
        self.classes = {}
        self.versions = collections.OrderedDict()
        self._original = archiving.instantiate_archived_class

    def __enter__(self):
        def instantiate(archived_class):
            obj, superclass = self._original(archived_class)
            self.classes[id(obj)] = (obj, archived_class)
            c = archived_class
            while c is not None:
                name = c.name.decode("latin-1")
                seen = self.versions.setdefault(name, [])
                if c.version not in seen:
                    seen.append(c.version)
                c = c.superclass
            return obj, superclass
        archiving.instantiate_archived_class = instantiate
        return self

    def __exit__(self, *exc):
        archiving.instantiate_archived_class = self._original
        return False

    def chain(self, obj):
        entry = self.classes.get(id(obj))
        if entry is None or entry[0] is not obj:
            return None
        out, c = [], entry[1]
        while c is not None:
            out.append([c.name.decode("latin-1"), c.version])
            c = c.superclass
        return out


def real(x):
    if math.isnan(x):
        return {"real": "nan"}
    if math.isinf(x):
        return {"real": "inf" if x > 0 else "-inf"}
    return {"real": x}


def text(b):
    try:
        return {"cstring": b.decode("utf-8")}
    except UnicodeDecodeError:
        return {"bytes": b.hex()}


def class_name(obj):
    if isinstance(obj, archiving.GenericArchivedObject):
        return obj.clazz.name.decode("latin-1")
    return archiving._object_class_name(obj)


def utf16_length(s):
    return len(s.encode("utf-16-le")) // 2


class Renderer:
    def __init__(self, recorder):
        self.recorder = recorder
        self.on_path = set()
        self.ids = {}

    def typed(self, group):
        if isinstance(group, archiving.TypedValue):
            return {"type": group.encoding.decode("latin-1"), "value": self.value(group.value)}
        return {"types": [e.decode("latin-1") for e in group.encodings], "values": [self.value(v) for v in group.values]}

    def value(self, v):
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, enum.Enum):
            return v.value
        if isinstance(v, int):
            return v
        if isinstance(v, float):
            return real(v)
        if isinstance(v, bytes):
            return text(v)
        if isinstance(v, archiving.TypedGroup):
            return self.typed(v)
        if isinstance(v, archiving.Class):
            return {"classref": v.name.decode("latin-1")}
        if isinstance(v, archiving.Array):
            if isinstance(v.elements, bytes):
                return {"carray": v.elements.hex()}
            return {"carray": [self.value(e) for e in v.elements]}
        if isinstance(v, archiving.GenericStruct):
            return {"struct": (v.name or b"?").decode("latin-1"), "fields": [self.value(f) for f in v.fields]}
        if isinstance(v, archiving.KnownStruct):
            return {"struct": v.struct_name.decode("latin-1"), "fields": [self.value(f) for f in vars(v).values()]}
        if isinstance(v, (list, tuple)):
            return [self.value(e) for e in v]
        if isinstance(v, collections.abc.Mapping):
            return self.mapping(list(v.items()))
        if isinstance(v, (archiving.KnownArchivedObject, archiving.GenericArchivedObject)):
            if id(v) in self.on_path:
                return {"ref": class_name(v)}
            if id(v) in self.ids:
                return {"class": class_name(v), "$shared": self.ids[id(v)]}
            self.on_path.add(id(v))
            try:
                return self.object(v)
            finally:
                self.on_path.discard(id(v))
        if hasattr(v, "__dict__"):  # pytypedstream's helper values (NSColor.RGBAValue, ...)
            return {"value": type(v).__qualname__, "fields": self.fields(v)}
        raise TypeError(f"cannot render {type(v).__module__}.{type(v).__qualname__}")

    def mapping(self, items):
        pairs = [(self.value(k), self.value(val)) for k, val in items]
        if all(isinstance(k, str) for k, _ in pairs) and len({k for k, _ in pairs}) == len(pairs):
            return {"dict": dict(pairs)}
        return {"dict": [[k, val] for k, val in pairs]}

    def object(self, obj):
        name = class_name(obj)
        known = obj
        if isinstance(obj, archiving.GenericArchivedObject):
            if name == "NSNull" and not obj.contents and isinstance(obj.super_object, foundation.NSObject):
                return None
            if name in ATTRIBUTED:
                attributed = self.attributed_string(obj)
                if attributed is not None:
                    return attributed
            known = obj.super_object if not obj.contents else None
        if isinstance(known, foundation.NSString):
            return known.value
        if isinstance(known, foundation.NSNumber):
            return self.value(known.value)
        if isinstance(known, foundation.NSData):
            return {"data": known.data.hex()}
        if isinstance(known, foundation.NSDate):
            return {"date": known.absolute_reference_date_offset}
        if isinstance(known, foundation.NSURL):
            return {"url": absolute_url(known)}
        if isinstance(known, foundation.NSDictionary):
            return self.mapping(list(known.contents.items()))
        if isinstance(known, foundation.NSSet):
            return {"set": [self.value(e) for e in known.elements]}
        if isinstance(known, foundation.NSArray):
            return [self.value(e) for e in known.elements]
        # Any other object: numbered at its first rendering, {"class", "$shared": n} at later ones.
        self.ids[id(obj)] = len(self.ids) + 1
        out = {"class": name, "$id": self.ids[id(obj)]}
        if isinstance(obj, archiving.GenericArchivedObject):
            if obj.super_object is not None and vars(obj.super_object):
                out["super"] = self.fields(obj.super_object)
            out["contents"] = [self.typed(g) for g in obj.contents]
        else:
            out["fields"] = self.fields(obj)
        return out

    def fields(self, obj):
        return {k: self.value(v) for k, v in vars(obj).items() if not k.startswith("_")}

    def attributed_string(self, obj):
        """NSAttributedString's typedstream contents (pytypedstream 0.1.0 has no reader for it): the string
        ('@'), then per run a group 'iI' (attribute index from 1, run length) followed, when the index is
        new, by the run's attribute dictionary ('@'). None when the contents have another shape."""
        contents = list(obj.contents)
        if not contents or not isinstance(contents[0], archiving.TypedValue) or contents[0].encoding != b"@":
            return None
        string = contents[0].value
        if not isinstance(string, foundation.NSString):
            return None
        dictionaries, runs, location, i = [], [], 0, 1
        while i < len(contents):
            group = contents[i]
            if not (isinstance(group, archiving.TypedGroup) and list(group.encodings) == [b"i", b"I"]):
                return None
            index, length = group.values
            i += 1
            if index == len(dictionaries) + 1:
                if i >= len(contents) or not isinstance(contents[i], archiving.TypedValue):
                    return None
                attributes = contents[i].value
                if not isinstance(attributes, foundation.NSDictionary):
                    return None
                dictionaries.append(attributes)
                i += 1
            elif not 1 <= index <= len(dictionaries):
                return None
            rendered = self.mapping(list(dictionaries[index - 1].contents.items()))["dict"]
            runs.append({"location": location, "length": length, "attributes": rendered})
            location += length
        if location != utf16_length(string.value):
            return None
        return {"class": class_name(obj), "string": string.value, "runs": runs}


def absolute_url(url):
    if url.relative_to is None:
        return url.value
    return urllib.parse.urljoin(absolute_url(url.relative_to), url.value)


def read_fixture(path, relative):
    doc = {"file": relative, "reader": READER}
    recorder = Recorder()
    try:
        with recorder, archiving.Unarchiver.open(path) as unarchiver:
            reader = unarchiver.reader
            groups = unarchiver.decode_all()
            header = {"byteOrder": reader.byte_order, "streamerVersion": reader.streamer_version,
                      "systemVersion": reader.system_version}
    except Exception as error:  # the oracle records any failure of the reader as the reading
        doc["error"] = f"{type(error).__name__}: {error}"
        return doc
    doc.update(header)
    doc["classVersions"] = {k: (v[0] if len(v) == 1 else v) for k, v in recorder.versions.items()}
    renderer = Renderer(recorder)
    roots = []
    for group in groups:
        root = renderer.typed(group)
        if isinstance(group, archiving.TypedValue):
            chain = recorder.chain(group.value)
            if chain is not None:
                root = {"type": root["type"], "classes": chain, "value": root["value"]}
        roots.append(root)
    doc["roots"] = roots
    return doc


def dump(doc):
    return json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


# ---- normalizing both sides ------------------------------------------------------------------------------------

STANDARD_WRAPPERS = {"real", "date", "url", "uuid", "data", "set", "orderedset", "dict", "ref"}


# Foundation's mutable classes, named as their immutable classes on both sides: the keyed conversion writes the
# immutable class (the model keeps the value, not its mutability), as the keyed reader reads both to one value.
MUTABLE = {"NSMutable" + name: "NS" + name
           for name in ("AttributedString", "String", "Array", "Dictionary", "Set", "Data", "OrderedSet")}


def cluster(name):
    return MUTABLE.get(name, name)


class Normal:
    def __init__(self):
        self.shallow = 0

    def oracle(self, v):
        """A pytypedstream rendering value, normalized."""
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, list):
            return [self.oracle(e) for e in v]
        if not isinstance(v, dict):
            return v
        if "class" in v and "runs" in v:
            return {"class": cluster(v["class"]), "string": v["string"],
                    "runs": [{"location": r["location"], "length": r["length"],
                              "attributes": self.pairs(r["attributes"], self.oracle)} for r in v["runs"]]}
        if "class" in v:
            self.shallow += 1
            return {"class": cluster(v["class"])}
        return self.wrapper(v, self.oracle)

    def ours(self, v):
        """A value of our archive-JSON tree form, normalized."""
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, list):
            return [self.ours(e) for e in v]
        if not isinstance(v, dict):
            return v
        if "class" in v and "fields" in v:
            if v["class"] in ATTRIBUTED:
                attributed = self.keyed_attributed_string(v)
                if attributed is not None:
                    return attributed
            self.shallow += 1
            return {"class": cluster(v["class"])}
        if "data" in v and len(v) == 1 and isinstance(v["data"], str):
            return {"data": base64.b64decode(v["data"]).hex()}
        return self.wrapper(v, self.ours)

    def wrapper(self, v, normalize):
        if len(v) == 1:
            (key, payload), = v.items()
            if key == "dict":
                return {"dict": self.pairs(payload, normalize)}
            if key == "set":
                return {"set": sorted((normalize(e) for e in payload), key=canonical_text)}
            if key in STANDARD_WRAPPERS:
                return {key: normalize(payload)}
        return {k: normalize(e) for k, e in v.items()}

    def pairs(self, payload, normalize):
        items = payload.items() if isinstance(payload, dict) else payload
        return sorted(([normalize(k), normalize(e)] for k, e in items), key=canonical_text)

    def keyed_attributed_string(self, v):
        fields = v["fields"]
        string = fields.get("NSString")
        if not isinstance(string, str):
            return None
        attributes = fields.get("NSAttributes")
        info = fields.get("NSAttributeInfo")
        if string == "" and attributes is None and info is None:
            # An empty string has no runs, and an archive then carries no attribute table.
            return {"class": cluster(v["class"]), "string": "", "runs": []}
        if info is None:
            if not isinstance(attributes, dict):
                return None
            spans = [(utf16_length(string), 0)] if string else []
            table = [attributes]
        else:
            if not (isinstance(info, dict) and isinstance(info.get("data"), str) and isinstance(attributes, list)):
                return None
            spans = varint_pairs(base64.b64decode(info["data"]))
            if spans is None:
                return None
            table = attributes
        runs, location = [], 0
        for length, index in spans:
            if not 0 <= index < len(table) or not isinstance(table[index], dict) or "dict" not in table[index]:
                return None
            runs.append({"location": location, "length": length,
                         "attributes": self.pairs(table[index]["dict"], self.ours)})
            location += length
        return {"class": cluster(v["class"]), "string": string, "runs": runs}


def varint_pairs(data):
    numbers, value, shift = [], 0, 0
    for byte in data:
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            numbers.append(value)
            value, shift = 0, 0
    if shift or len(numbers) % 2:
        return None
    return list(zip(numbers[0::2], numbers[1::2]))


def canonical_text(v):
    return json.dumps(v, sort_keys=True, ensure_ascii=False)


def first_difference(a, b, path="$"):
    if type(a) is not type(b):
        return path, a, b
    if isinstance(a, dict):
        if list(a.keys()) != list(b.keys()):
            return path + " keys", sorted(a.keys()), sorted(b.keys())
        for k in a:
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        if len(a) != len(b):
            return path + " length", len(a), len(b)
        return None
    return None if a == b else (path, a, b)


def short(v, limit=160):
    t = canonical_text(v)
    return t if len(t) <= limit else t[:limit] + "..."


def oracle_document(doc):
    roots = []
    for root in doc["roots"]:
        roots.extend([root["value"]] if "value" in root else root["values"])
    return roots


def our_document(value):
    if isinstance(value, dict) and list(value.keys()) == ["$top"]:
        top = value["$top"]
        def order(key):
            return (0, int(key[1:])) if key[:1] == "$" and key[1:].isdigit() else (1, key)
        return [top[k] for k in sorted(top, key=order)]
    return [value]


def run_decode(binary, path):
    # No budget of printed objects: the Grapher documents share objects many times, and the comparison wants the
    # tree whole (the budget guards a terminal against exponential output, not the comparison).
    result = subprocess.run([binary, "decode", "--max-objects", "100000000", str(path)], capture_output=True)
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, f"exit {result.returncode}: {message[-1] if message else ''}"
    try:
        return json.loads(result.stdout.decode("utf-8")), None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        return None, f"its output is not JSON: {error}"


def compare(root, binary):
    counts = collections.Counter()
    paths = fixture_paths(root)
    for path in paths:
        relative = path.relative_to(root).as_posix()
        doc = read_fixture(path, relative)
        ours, our_error = run_decode(binary, path)
        if "error" in doc and "/broken/" in relative:
            if our_error is not None:
                line, key = "match (both refuse)", "match"
            else:
                line, key = f"MISMATCH ours reads a broken stream that pytypedstream refuses ({doc['error']})", "mismatch"
        elif "error" in doc:
            ours_note = "ours reads it" if our_error is None else f"ours fails too: {our_error}"
            line, key = f"unchecked (pytypedstream cannot read it: {doc['error']}; {ours_note})", "unchecked"
        elif our_error is not None:
            line, key = f"MISMATCH ours fails ({our_error}); pytypedstream reads it", "mismatch"
        else:
            normal_oracle, normal_ours = Normal(), Normal()
            expected = normal_oracle.oracle(oracle_document(doc))
            actual = normal_ours.ours(our_document(ours))
            difference = first_difference(expected, actual)
            if difference is None:
                line, key = "match", "match"
                if normal_oracle.shallow:
                    line += f" [shallow={normal_oracle.shallow}]"
            else:
                where, a, b = difference
                line, key = f"MISMATCH at {where}: pytypedstream {short(a)}, ours {short(b)}", "mismatch"
        counts[key] += 1
        print(f"ORACLE {relative} {line}", flush=True)
    print(f"ORACLE fixtures={len(paths)} match={counts['match']} mismatch={counts['mismatch']} "
          f"unchecked={counts['unchecked']}")
    return 1 if counts["mismatch"] else 0


# Keyed NSAttributedString fixtures and the runs they hold (read off the archives by hand), for --self-test.
# swift-corelibs-foundation's two archives hold the same runs (NSAttributeInfo 01 00 01 01 04 02 02 01 01 03 01 00).
CORELIBS_RUNS = [
    {"location": 0, "length": 1, "attributes": []},
    {"location": 1, "length": 1, "attributes": [["Font", "Helvetica"], ["Size", 123]]},
    {"location": 2, "length": 4, "attributes": [["Font", "Times"], ["Size", 456]]},
    {"location": 6, "length": 2, "attributes": [["Font", "Helvetica"], ["Size", 123]]},
    {"location": 8, "length": 1, "attributes": [["Font", "Times"], ["Size", 456]]},
    {"location": 9, "length": 1, "attributes": []},
]
SELF_TEST = [
    ("Fixtures/keyed/swift-corelibs-foundation/macOS-10.14/NSAttributedString.archive",
     {"class": "NSAttributedString", "string": "0123456789", "runs": CORELIBS_RUNS}),
    ("Fixtures/keyed/swift-corelibs-foundation/macOS-10.14/NSMutableAttributedString.archive",
     {"class": "NSMutableAttributedString", "string": "0123456789", "runs": CORELIBS_RUNS}),
    ("Fixtures/keyed/michaelwright235-nskeyedunarchiver/NSMutableAttributedString.plist",
     {"class": "NSMutableAttributedString", "string": "firstsecondthird", "runs": [
         {"location": 0, "length": 5, "attributes": [["NSColor", {"class": "NSColor"}]]},
         {"location": 5, "length": 11, "attributes": []}]}),
]


def self_test(root, binary):
    failures = 0
    for relative, expected in SELF_TEST:
        ours, error = run_decode(binary, root / relative)
        if error is not None:
            print(f"SELFTEST {relative} FAIL decode: {error}")
            failures += 1
            continue
        normal = Normal()
        actual = normal.ours(ours)
        difference = first_difference(dict(expected, **{"class": cluster(expected["class"])}), actual)
        if difference is None:
            print(f"SELFTEST {relative} ok [shallow={normal.shallow}]")
        else:
            failures += 1
            where, a, b = difference
            print(f"SELFTEST {relative} FAIL at {where}: expected {short(a)}, normalized {short(b)}")
    print(f"SELFTEST fixtures={len(SELF_TEST)} failed={failures}")
    return 1 if failures else 0


def render_all(root, check):
    counts = collections.Counter()
    paths = fixture_paths(root)
    for path in paths:
        relative = path.relative_to(root).as_posix()
        doc = read_fixture(path, relative)
        text_out = dump(doc)
        target = path.with_name(path.name + SUFFIX)
        if check:
            old = target.read_text(encoding="utf-8") if target.exists() else None
            if old == text_out:
                counts["unchanged"] += 1
            else:
                counts["changed"] += 1
                print(f"changed {relative}{SUFFIX}" if old is not None else f"missing {relative}{SUFFIX}")
            continue
        target.write_text(text_out, encoding="utf-8")
        counts["failed" if "error" in doc else "rendered"] += 1
        note = f" (pytypedstream: {doc['error']})" if "error" in doc else ""
        print(f"wrote {relative}{SUFFIX}{note}")
    if check:
        print(f"ORACLE fixtures={len(paths)} unchanged={counts['unchanged']} changed={counts['changed']}")
        return 1 if counts["changed"] else 0
    print(f"ORACLE rendered={counts['rendered']} failed={counts['failed']}")
    return 0


def main():
    parser = argparse.ArgumentParser(description="pytypedstream as the oracle of our typedstream reader")
    parser.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--compare", metavar="BIN")
    mode.add_argument("--self-test", metavar="BIN")
    args = parser.parse_args()
    root = args.root.resolve()
    sys.setrecursionlimit(20000)
    if args.compare:
        return compare(root, os.path.abspath(args.compare))
    if args.self_test:
        return self_test(root, os.path.abspath(args.self_test))
    return render_all(root, args.check)


if __name__ == "__main__":
    sys.exit(main())
