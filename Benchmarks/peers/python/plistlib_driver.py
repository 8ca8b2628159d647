"""Python's plistlib (the interpreter's own) as a peer: binary and XML, read and write."""
import plistlib

from peer_timing import main


def reader(fmt):
    def make(inputs):
        data = inputs[0]
        return lambda: plistlib.loads(data, fmt=fmt)
    return make


def writer(fmt, input_fmt):
    def make(inputs):
        tree = plistlib.loads(inputs[0], fmt=input_fmt)
        return lambda: plistlib.dumps(tree, fmt=fmt)
    return make


main({
    "binary-read": reader(plistlib.FMT_BINARY),
    "binary-write": writer(plistlib.FMT_BINARY, plistlib.FMT_BINARY),
    "xml-read": reader(plistlib.FMT_XML),
    "xml-write": writer(plistlib.FMT_XML, plistlib.FMT_XML),
}, does_not={"keyed-typed": "plist codec only", "keyed-generic": "plist codec only",
             "typedstream-decode": "plist codec only"})
