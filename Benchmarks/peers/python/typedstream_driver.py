"""pytypedstream (PyPI) as a peer: NSArchiver typedstreams decoded whole, unknown classes kept generic."""
from typedstream.archiving import Unarchiver

from peer_timing import main


def decode(inputs):
    def body():
        for stream in inputs:
            Unarchiver.from_data(stream).decode_all()
    return body


main({"typedstream-decode": decode})
