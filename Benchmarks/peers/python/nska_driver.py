"""nska-deserialize (PyPI) as a peer: a keyed archive read generically into Python dicts and lists."""
import nska_deserialize

from peer_timing import main


def generic(inputs):
    data = inputs[0]
    return lambda: nska_deserialize.deserialize_plist_from_string(data, format=dict)


main({"keyed-generic": generic}, does_not={"keyed-typed": "no class mapping: reads into dicts only"})
