import XCTest
import XMP

/// The XMP face-region reader and the window it places.
final class FaceRegionsTests: XCTestCase {
    /// An XMP packet as ExifTool writes MWG regions: properties as elements.
    static func elements(_ areas: [(x: String, y: String, w: String, h: String)], type: String = "Face",
                         unit: String = "normalized") -> [UInt8] {
        let items = areas.map { area in
            """
                 <rdf:li rdf:parseType='Resource'>
                  <mwg-rs:Area rdf:parseType='Resource'>
                   <stArea:h>\(area.h)</stArea:h><stArea:unit>\(unit)</stArea:unit>
                   <stArea:w>\(area.w)</stArea:w><stArea:x>\(area.x)</stArea:x><stArea:y>\(area.y)</stArea:y>
                  </mwg-rs:Area>
                  <mwg-rs:Name>Ann</mwg-rs:Name>
                  <mwg-rs:Type>\(type)</mwg-rs:Type>
                 </rdf:li>
            """
        }.joined()
        return Array("""
            <?xpacket begin='\u{FEFF}' id='W5M0MpCehiHzreSzNTczkc9d'?>
            <x:xmpmeta xmlns:x='adobe:ns:meta/'>
            <rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>
             <rdf:Description rdf:about=''
              xmlns:mwg-rs='http://www.metadataworkinggroup.com/schemas/regions/'
              xmlns:stArea='http://ns.adobe.com/xmp/sType/Area#'
              xmlns:stDim='http://ns.adobe.com/xap/1.0/sType/Dimensions#'>
              <mwg-rs:Regions rdf:parseType='Resource'>
               <mwg-rs:AppliedToDimensions stDim:w='1200' stDim:h='400' stDim:unit='pixel'/>
               <mwg-rs:RegionList><rdf:Bag>\(items)</rdf:Bag></mwg-rs:RegionList>
              </mwg-rs:Regions>
             </rdf:Description>
            </rdf:RDF>
            </x:xmpmeta>
            <?xpacket end='w'?>
            """.utf8)
    }

    func testElementsAsExifToolWritesThem() {
        let found = FaceRegions.parse(Self.elements([("0.875", "0.5", "0.1", "0.25")]))
        XCTAssertNil(found.problem)
        XCTAssertEqual(found.regions.count, 1)
        let face = found.regions[0]
        XCTAssertEqual(face.left, 0.825, accuracy: 1e-9)
        XCTAssertEqual(face.right, 0.925, accuracy: 1e-9)
        XCTAssertEqual(face.top, 0.375, accuracy: 1e-9)
        XCTAssertEqual(face.bottom, 0.625, accuracy: 1e-9)
    }

    /// Lightroom and digiKam write the same properties as attributes, with other prefixes.
    func testAttributesWithOtherPrefixes() {
        let packet = Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:r="http://www.metadataworkinggroup.com/schemas/regions/"
              xmlns:a="http://ns.adobe.com/xmp/sType/Area#"><r:Regions rdf:parseType="Resource"><r:RegionList><rdf:Bag>
             <rdf:li><rdf:Description r:Type="Face" r:Name="Bo"><r:Area a:x="0.25" a:y="0.5" a:w="0.2" a:h="0.4" a:unit="normalized"/></rdf:Description></rdf:li>
             <rdf:li><rdf:Description r:Type="Pet"><r:Area a:x="0.5" a:y="0.5" a:w="0.2" a:h="0.2" a:unit="normalized"/></rdf:Description></rdf:li>
            </rdf:Bag></r:RegionList></r:Regions></rdf:Description></rdf:RDF></x:xmpmeta>
            """.utf8)
        let found = FaceRegions.parse(packet)
        XCTAssertNil(found.problem)
        XCTAssertEqual(found.regions, [FaceRegion(left: 0.15, top: 0.3, right: 0.35, bottom: 0.7)])
    }

    func testBadInputIsSaidNeverThrown() {
        XCTAssertEqual(FaceRegions.parse([]), FaceRegions())
        let notXML = FaceRegions.parse(Array("<x:xmpmeta><rdf:RDF></oops>".utf8))
        XCTAssertTrue(notXML.regions.isEmpty)
        XCTAssertTrue(notXML.problem?.hasPrefix("not XML") == true, notXML.problem ?? "no problem said")
        // Not UTF-8: refused before the parser sees it.
        var badName = Self.elements([("0.5", "0.5", "0.2", "0.2")])
        badName.replaceSubrange(badName.indices.first { Array(badName[$0...].prefix(8)) == Array("Regions ".utf8) }!..., with: [0xc5])
        XCTAssertEqual(FaceRegions.parse(badName).problem, "XMP that is not UTF-8")
        let outside = FaceRegions.parse(Self.elements([("1.5", "0.5", "0.2", "0.2"), ("0.95", "0.5", "0.2", "0.2")]))
        XCTAssertEqual(outside.problem, "1 face region outside the image")
        XCTAssertEqual(outside.regions.count, 1)
        XCTAssertEqual(outside.regions[0].right, 1)  // the part inside, cut at the edge
        let empty = FaceRegions.parse(Self.elements([("0.5", "0.5", "0", "0.2"), ("0.5", "0.5", "-1", "0.2")]))
        XCTAssertEqual(empty.problem, "2 face regions of zero size")
        XCTAssertTrue(empty.regions.isEmpty)
        let words = FaceRegions.parse(Self.elements([("nan", "0.5", "0.2", "0.2"), ("left", "0.5", "0.2", "0.2")]))
        XCTAssertEqual(words.problem, "2 face regions without a normalised area")
        let pixels = FaceRegions.parse(Self.elements([("600", "200", "100", "100")], unit: "pixel"))
        XCTAssertTrue(pixels.regions.isEmpty)
        XCTAssertNotNil(pixels.problem)
    }

    func testBoundedInWhatItReads() {
        let huge = FaceRegions.parse(Self.elements([("0.5", "0.5", "0.2", "0.2")]) + [UInt8](repeating: 32, count: FaceRegions.maxBytes))
        XCTAssertTrue(huge.regions.isEmpty)
        XCTAssertTrue(huge.problem?.contains("more than") == true)
        let entities = FaceRegions.parse(Array("<!DOCTYPE x [<!ENTITY a 'aaaa'><!ENTITY b '&a;&a;&a;'>]><x>&b;</x>".utf8))
        XCTAssertEqual(entities.problem, "XMP with a document type")
        let deep = FaceRegions.parse(Array((String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100)).utf8))
        XCTAssertTrue(deep.problem?.contains("nested") == true)
        let many = FaceRegions.parse(Self.elements(Array(repeating: ("0.5", "0.5", "0.1", "0.1"), count: 300)))
        XCTAssertEqual(many.regions.count, FaceRegions.maxRegions)
        XCTAssertTrue(many.problem?.contains("more than") == true)
    }

    /// EXIF orientations move a stored rectangle where the viewer sees it.
    func testUprightFollowsEveryOrientation() {
        // A face near the stored image's top left corner.
        let stored = FaceRegion(left: 0.1, top: 0.2, right: 0.3, bottom: 0.4)
        let expected: [Int: FaceRegion] = [
            1: stored,
            2: FaceRegion(left: 0.7, top: 0.2, right: 0.9, bottom: 0.4),
            3: FaceRegion(left: 0.7, top: 0.6, right: 0.9, bottom: 0.8),
            4: FaceRegion(left: 0.1, top: 0.6, right: 0.3, bottom: 0.8),
            5: FaceRegion(left: 0.2, top: 0.1, right: 0.4, bottom: 0.3),
            6: FaceRegion(left: 0.6, top: 0.1, right: 0.8, bottom: 0.3),
            7: FaceRegion(left: 0.6, top: 0.7, right: 0.8, bottom: 0.9),
            8: FaceRegion(left: 0.2, top: 0.7, right: 0.4, bottom: 0.9),
        ]
        for (orientation, region) in expected {
            let upright = FaceWindow.upright(stored, orientation: orientation)
            for (got, want) in [(upright.left, region.left), (upright.top, region.top),
                                (upright.right, region.right), (upright.bottom, region.bottom)] {
                XCTAssertEqual(got, want, accuracy: 1e-9, "orientation \(orientation)")
            }
        }
    }

    func testWindowHoldsAllFacesElseTheLargest() {
        // 1200x400 covering a 400x400 tile: the window slides along x.
        let right = FaceRegion(left: 0.8, top: 0.4, right: 0.9, bottom: 0.6)
        XCTAssertEqual(FaceWindow.origin(of: [right], coverWidth: 1200, coverHeight: 400, tileWidth: 400, tileHeight: 400).x, 800)
        let centre = FaceRegion(left: 0.45, top: 0.4, right: 0.55, bottom: 0.6)
        XCTAssertEqual(FaceWindow.origin(of: [centre], coverWidth: 1200, coverHeight: 400, tileWidth: 400, tileHeight: 400).x, 400)
        // Two that fit together: the window holds both.
        let pair = [FaceRegion(left: 0.4, top: 0.4, right: 0.45, bottom: 0.5), FaceRegion(left: 0.65, top: 0.4, right: 0.7, bottom: 0.5)]
        let both = FaceWindow.origin(of: pair, coverWidth: 1200, coverHeight: 400, tileWidth: 400, tileHeight: 400).x
        XCTAssertLessThanOrEqual(both, 480)
        XCTAssertGreaterThanOrEqual(both + 400, 840)
        // Too far apart: centred on the largest, the small one left out.
        let apart = [FaceRegion(left: 0.0, top: 0.4, right: 0.05, bottom: 0.5), FaceRegion(left: 0.8, top: 0.3, right: 0.95, bottom: 0.7)]
        XCTAssertEqual(FaceWindow.origin(of: apart, coverWidth: 1200, coverHeight: 400, tileWidth: 400, tileHeight: 400).x, 800)
        // Along y for a tall image; never outside it.
        let top = FaceRegion(left: 0.4, top: 0.0, right: 0.6, bottom: 0.05)
        XCTAssertEqual(FaceWindow.origin(of: [top], coverWidth: 300, coverHeight: 900, tileWidth: 300, tileHeight: 200).y, 0)
    }
}
