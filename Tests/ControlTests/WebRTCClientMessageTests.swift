import Foundation
import Testing

@testable import Control

/// The browser's signalling messages on `/api/webrtc`, decoded with every value checked: an m-line index must be a
/// JSON integer that fits UInt32 (4294967296 crashed the process before: exit 132), strings are bounded and have no
/// NUL; every refusal names the field and what was expected.
struct WebRTCClientMessageTests {
    static func decode(_ json: String) -> Result<WebRTCClientMessage, WebRTCMessageError> {
        Result { () throws(WebRTCMessageError) in try WebRTCClientMessage.decode(Data(json.utf8)) }
    }

    static func error(_ json: String) -> String? {
        if case .failure(let e) = decode(json) { return e.message }
        return nil
    }

    @Test func whatABrowserSendsIsDecoded() throws {
        #expect(try Self.decode(#"{"type":"answer","sdp":"v=0\r\nm=video 9 UDP 96\r\n"}"#).get() == .answer(sdp: "v=0\r\nm=video 9 UDP 96\r\n"))
        #expect(
            try Self.decode(
                #"{"type":"ice","candidate":"candidate:1 1 udp 1677729535 127.0.0.1 56143 typ host","sdpMid":"video0","sdpMLineIndex":0}"#
            ).get() == .candidate("candidate:1 1 udp 1677729535 127.0.0.1 56143 typ host", mline: 0))
        #expect(try Self.decode(#"{"type":"ice","candidate":"c","sdpMLineIndex":4294967295}"#).get() == .candidate("c", mline: UInt32.max))
        #expect(try Self.decode(#"{"type":"ice","candidate":null}"#).get() == .endOfCandidates)
        #expect(try Self.decode(#"{"type":"ice","candidate":""}"#).get() == .endOfCandidates)
        #expect(try Self.decode(#"{"type":"ice"}"#).get() == .endOfCandidates)
    }

    @Test func anMLineIndexOutsideUInt32IsRefusedNamingTheField() {
        let line = #""candidate":"candidate:1 1 UDP 1 127.0.0.1 9 typ host""#
        #expect(Self.error(#"{"type":"ice",\#(line),"sdpMLineIndex":4294967296}"#) == "ice 'sdpMLineIndex' 4294967296: expected an integer in 0...4294967295")
        #expect(Self.error(#"{"type":"ice",\#(line),"sdpMLineIndex":-1}"#) == "ice 'sdpMLineIndex' -1: expected an integer in 0...4294967295")
        #expect(Self.error(#"{"type":"ice",\#(line),"sdpMLineIndex":1.5}"#) == "ice 'sdpMLineIndex' 1.5: expected an integer in 0...4294967295")
        #expect(Self.error(#"{"type":"ice",\#(line),"sdpMLineIndex":99999999999999999999}"#) == "ice 'sdpMLineIndex' 1e+20: expected an integer in 0...4294967295")
        #expect(Self.error(#"{"type":"ice",\#(line),"sdpMLineIndex":1e400}"#) == "ice 'sdpMLineIndex' is a number too large to represent: expected an integer in 0...4294967295")
        #expect(Self.error(#"{"type":"ice",\#(line),"sdpMLineIndex":"0"}"#) == "ice 'sdpMLineIndex' is a string: expected an integer in 0...4294967295")
        #expect(Self.error(#"{"type":"ice",\#(line),"sdpMLineIndex":true}"#) == "ice 'sdpMLineIndex' is a boolean: expected an integer in 0...4294967295")
        #expect(Self.error(#"{"type":"ice",\#(line)}"#) == "ice without 'sdpMLineIndex': expected a non-negative integer")
    }

    @Test func stringsAreBoundedAndHaveNoNUL() {
        let big = String(repeating: "a", count: WebRTCClientMessage.sdpLimit + 1)
        #expect(Self.error(#"{"type":"answer","sdp":"\#(big)"}"#) == "answer 'sdp' has 32769 bytes: expected at most 32768")
        let long = String(repeating: "c", count: 1025)
        #expect(Self.error(#"{"type":"ice","candidate":"\#(long)","sdpMLineIndex":0}"#) == "ice 'candidate' has 1025 bytes: expected at most 1024")
        #expect(Self.error(#"{"type":"answer","sdp":"v=0\u0000"}"#) == "answer 'sdp' contains a NUL character: expected the SDP text")
        #expect(Self.error(#"{"type":"ice","candidate":7,"sdpMLineIndex":0}"#) == "ice 'candidate' is a number: expected a candidate:... line, or null at the end")
        #expect(Self.error(#"{"type":"answer","sdp":["v=0"]}"#) == "answer 'sdp' is an array: expected the SDP text")
        #expect(Self.error(#"{"type":"answer"}"#) == "answer without 'sdp': expected the SDP text")
        let huge = String(repeating: " ", count: WebRTCClientMessage.messageLimit + 1)
        #expect(Self.error(huge) == "message larger than 65536 bytes (65537)")
    }

    @Test func otherMessagesAreRefusedSayingWhatWasExpected() {
        let notObject = #"not a JSON object: expected {"type":"answer","sdp":...} or {"type":"ice",...}"#
        #expect(Self.error("not json") == notObject)
        #expect(Self.error("[1,2]") == notObject)
        #expect(Self.error("") == notObject)
        #expect(Self.error(#"{"type":"hello"}"#) == "unknown 'type' 'hello': expected answer or ice")
        #expect(Self.error(#"{"sdp":"v=0"}"#) == "unknown 'type' (none): expected answer or ice")
        #expect(Self.error(#"{"type":{"a":1}}"#) == "'type' is an object: expected the string answer or ice")
        let name = String(repeating: "x", count: 500)
        #expect(Self.error(#"{"type":"\#(name)"}"#) == "unknown 'type' '\(String(repeating: "x", count: 80))… (500 characters)': expected answer or ice")
    }
}
