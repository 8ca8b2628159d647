"""bpylist2 (PyPI) as a peer: keyed archives, typed (the W1 classes mapped) and generic (nothing mapped
beyond bpylist2's own NSArray, NSDictionary, NSSet, NSDate, NSData...)."""
from bpylist2 import archiver

from peer_timing import main


class Style:
    @staticmethod
    def decode_archive(a):
        s = Style()
        s.name, s.stroke_width = a.decode("name"), a.decode("strokeWidth")
        return s


class Circle:
    @staticmethod
    def decode_archive(a):
        c = Circle()
        c.x, c.y, c.radius, c.style = a.decode("center.x"), a.decode("center.y"), a.decode("radius"), a.decode("style")
        return c


class Rectangle:
    @classmethod
    def decode_archive(cls, a):
        r = cls()
        r.x, r.y = a.decode("origin.x"), a.decode("origin.y")
        r.width, r.height, r.style = a.decode("size.width"), a.decode("size.height"), a.decode("style")
        return r


class RoundedRectangle(Rectangle):
    @classmethod
    def decode_archive(cls, a):
        r = super().decode_archive(a)
        r.corner_radius = a.decode("cornerRadius")
        return r


class Contents:
    @staticmethod
    def decode_archive(a):
        c = Contents()
        c.shapes = a.decode("shapes")
        return c


W1_CLASSES = {"Contents": Contents, "Circle": Circle, "Rectangle": Rectangle,
              "RoundedRectangle": RoundedRectangle, "Style": Style}


def typed(inputs):
    archiver.update_class_map(W1_CLASSES)
    data = inputs[0]
    return lambda: archiver.unarchive(data)


def generic(inputs):
    data = inputs[0]
    return lambda: archiver.unarchive(data)


main({"keyed-typed": typed, "keyed-generic": generic})
