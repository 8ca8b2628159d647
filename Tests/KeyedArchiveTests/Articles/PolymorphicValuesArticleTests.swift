// Mirrors Sources/KeyedArchive/KeyedArchive.docc/PolymorphicValues.md (see ArticleCode in TestSupport)
import KeyedArchive
import Testing

@Suite("Article: Polymorphic values")
struct PolymorphicValuesArticleTests {
    @Suite struct ThroughNSCoding {
        // snippet
        protocol Shape: KeyedArchivable {}

        final class Circle: Shape {
            var radius: Double
            init(radius: Double) { self.radius = radius }
            init(coder: KeyedUnarchiver) throws { radius = try coder.decode(Double.self, forKey: "radius") }
            func encode(with coder: KeyedArchiver) { coder.encode(radius, forKey: "radius") }
        }

        class Rectangle: Shape {
            var width: Double
            var height: Double
            init(width: Double, height: Double) { (self.width, self.height) = (width, height) }
            required init(coder: KeyedUnarchiver) throws {
                width = try coder.decode(Double.self, forKey: "width")
                height = try coder.decode(Double.self, forKey: "height")
            }
            func encode(with coder: KeyedArchiver) {
                coder.encode(width, forKey: "width")
                coder.encode(height, forKey: "height")
            }
        }

        final class RoundedRectangle: Rectangle {
            var cornerRadius: Double
            init(width: Double, height: Double, cornerRadius: Double) {
                self.cornerRadius = cornerRadius
                super.init(width: width, height: height)
            }
            required init(coder: KeyedUnarchiver) throws {
                cornerRadius = try coder.decode(Double.self, forKey: "cornerRadius")
                try super.init(coder: coder)
            }
            override func encode(with coder: KeyedArchiver) {
                super.encode(with: coder)
                coder.encode(cornerRadius, forKey: "cornerRadius")
            }
        }
        // end snippet

        // snippet
        final class Drawing: KeyedArchivable {
            var shapes: [any Shape]
            init(shapes: [any Shape]) { self.shapes = shapes }
            init(coder: KeyedUnarchiver) throws { shapes = try coder.decode([any Shape].self, forKey: "shapes") }
            func encode(with coder: KeyedArchiver) { coder.encode(shapes, forKey: "shapes") }
        }
        // end snippet

        @Test func eachShapeComesBackAsItsOwnClass() throws {
            // snippet
            let drawing = Drawing(shapes: [
                Circle(radius: 1), Rectangle(width: 2, height: 3), RoundedRectangle(width: 4, height: 5, cornerRadius: 1),
            ])
            let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: drawing)

            let registry = ClassRegistry([Drawing.self, Circle.self, Rectangle.self, RoundedRectangle.self])
            let restored = try KeyedUnarchiver.unarchivedObject(ofType: Drawing.self, from: bytes, registry: registry)
            // end snippet
            let shapes = try #require(restored?.shapes)
            #expect(shapes.map { "\(type(of: $0))" } == ["Circle", "Rectangle", "RoundedRectangle"])
            #expect((shapes[0] as? Circle)?.radius == 1)
            #expect((shapes[2] as? RoundedRectangle).map { [$0.width, $0.height, $0.cornerRadius] } == [4, 5, 1])
            let graph = try ArchiveGraph(bytes: bytes)
            #expect(graph.objects.indices.compactMap { graph.classChain(of: $0) }
                .contains(["RoundedRectangle", "Rectangle", "NSObject"]))

            // The listed classes and their subclasses decode; another shape class is refused before it is made.
            let listed = ClassRegistry([ListedDrawing.self, Circle.self, Rectangle.self, RoundedRectangle.self])
            #expect(try KeyedUnarchiver.unarchivedObject(ofType: ListedDrawing.self, from: bytes, registry: listed)?.shapes.count == 3)
            let triangle: [UInt8] = try KeyedArchiver.archivedData(withRootObject: Drawing(shapes: [Triangle()]))
            let refused = #expect(throws: KeyedArchiveError.self) {
                try KeyedUnarchiver.unarchivedObject(
                    ofType: ListedDrawing.self, from: triangle, registry: listed.registering(Triangle.self))
            }
            #expect(refused?.code == .classNotAllowed)
        }

        /// `Drawing` with the list of shape classes that its `init(coder:)` accepts.
        final class ListedDrawing: KeyedArchivable {
            static var archivedClassName: String { "Drawing" }
            var shapes: [any Shape]
            // snippet
            init(coder: KeyedUnarchiver) throws {
                shapes = try coder.decode([any Shape].self, forKey: "shapes", allowedTypes: [Circle.self, Rectangle.self])
            }
            // end snippet
            func encode(with coder: KeyedArchiver) {}
        }

        final class Triangle: Shape {
            init() {}
            init(coder: KeyedUnarchiver) throws {}
            func encode(with coder: KeyedArchiver) {}
        }
    }

    @Suite struct ThroughCodable {
        // snippet
        protocol Shape: ArchiveCodable {}

        struct Circle: Shape {
            var radius: Double
        }

        class Rectangle: Shape {
            var width: Double
            var height: Double
            init(width: Double, height: Double) { (self.width, self.height) = (width, height) }
        }

        final class RoundedRectangle: Rectangle {
            var cornerRadius: Double
            init(width: Double, height: Double, cornerRadius: Double) {
                self.cornerRadius = cornerRadius
                super.init(width: width, height: height)
            }

            private enum CodingKeys: String, CodingKey { case cornerRadius }

            required init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                cornerRadius = try container.decode(Double.self, forKey: .cornerRadius)
                try super.init(from: container.superDecoder())
            }

            override func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(cornerRadius, forKey: .cornerRadius)
                try super.encode(to: container.superEncoder())
            }
        }
        // end snippet

        // snippet
        struct Drawing: Codable {
            @Polymorphic var shapes: [any Shape]
        }
        // end snippet

        @Test func eachShapeComesBackAsItsOwnType() throws {
            // snippet
            let drawing = Drawing(shapes: [
                Circle(radius: 1), Rectangle(width: 2, height: 3), RoundedRectangle(width: 4, height: 5, cornerRadius: 1),
            ])
            let bytes = try ArchiveEncoder().encode(drawing)

            let registry = ClassRegistry([Circle.self, Rectangle.self, RoundedRectangle.self])
            let restored = try ArchiveDecoder(registry: registry).decode(Drawing.self, from: bytes)
            // end snippet
            #expect(restored.shapes.map { "\(type(of: $0))" } == ["Circle", "Rectangle", "RoundedRectangle"])
            #expect((restored.shapes[0] as? Circle)?.radius == 1)
            #expect((restored.shapes[2] as? RoundedRectangle).map { [$0.width, $0.height, $0.cornerRadius] } == [4, 5, 1])
            let graph = try ArchiveGraph(bytes: bytes)
            #expect(graph.objects.indices.compactMap { graph.classChain(of: $0) }
                .contains(["RoundedRectangle", "Rectangle", "NSObject"]))

            // snippet
            let shapes = try ArchiveDecoder(registry: registry).decode([any Shape].self, from: ArchiveEncoder().encode(drawing.shapes))
            // end snippet
            #expect(shapes.map { "\(type(of: $0))" } == ["Circle", "Rectangle", "RoundedRectangle"])
        }

        @Test func oneInstanceReferencedTwiceIsArchivedOnce() throws {
            let square = Rectangle(width: 2, height: 2)
            let bytes = try ArchiveEncoder().encode(Drawing(shapes: [square, square]))
            let registry = ClassRegistry([Circle.self, Rectangle.self, RoundedRectangle.self])
            let restored = try ArchiveDecoder(registry: registry).decode(Drawing.self, from: bytes)
            #expect((restored.shapes[0] as? Rectangle) === (restored.shapes[1] as? Rectangle))
        }

        @Test func anUnregisteredShapeIsAnErrorNamingItsClass() throws {
            let bytes = try ArchiveEncoder().encode(Drawing(shapes: [Circle(radius: 1)]))
            let failure = #expect(throws: DecodingError.self) {
                try ArchiveDecoder(registry: ClassRegistry([Rectangle.self])).decode(Drawing.self, from: bytes)
            }
            #expect("\(String(describing: failure))".contains("Circle"))
        }
    }
}
