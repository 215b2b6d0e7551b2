// libFuzzer target for the WebRTC signalling message decoder (Sources/Control/Signalling, Foundation only, so no
// GStreamer or HTTP server is needed). Built and run by `launch/fuzz signalling`: swiftc -sanitize=fuzzer
// -parse-as-library Fuzz/SignallingFuzz.swift Sources/Control/Signalling/*.swift. Any trap (a failed check below,
// an overflow, a conversion that does not fit) is a crash libFuzzer saves; a thrown WebRTCMessageError is a
// correct answer.
//
// Besides "no crash", it checks what the decoder promises the WebRTC peer:
// - every error has a message, and it is short (values are quoted cut, never echoed whole);
// - an SDP or a candidate that comes out is non-empty, within its limit and has no NUL character;
// - a decoded message written back as JSON decodes to the same message (nothing is lost or invented).
import Foundation

private func check(_ condition: Bool, _ what: @autoclosure () -> String) {
    if !condition { fatalError("SignallingFuzz invariant: " + what()) }
}

private func checkText(_ s: String, limit: Int, _ what: String) {
    check(!s.isEmpty, "empty \(what) decoded")
    check(s.utf8.count <= limit, "\(what) of \(s.utf8.count) bytes passed the \(limit) limit")
    check(!s.utf8.contains(0), "\(what) with a NUL character decoded")
}

private func exercise(_ data: Data) {
    let message: WebRTCClientMessage
    do {
        message = try WebRTCClientMessage.decode(data)
    } catch {
        check(!error.message.isEmpty, "empty error for \(data.count) bytes")
        check(error.message.count <= 300, "error of \(error.message.count) characters: \(error.message.prefix(400))")
        return
    }
    let object: [String: Any]
    switch message {
    case .answer(let sdp):
        checkText(sdp, limit: WebRTCClientMessage.sdpLimit, "SDP")
        object = ["type": "answer", "sdp": sdp]
    case .candidate(let candidate, let mline):
        checkText(candidate, limit: WebRTCClientMessage.candidateLimit, "candidate")
        object = ["type": "ice", "candidate": candidate, "sdpMLineIndex": Int(mline)]
    case .endOfCandidates:
        object = ["type": "ice", "candidate": NSNull()]
    }
    guard let again = try? JSONSerialization.data(withJSONObject: object) else {
        check(false, "a decoded message cannot be written as JSON: \(message)")
        return
    }
    do {
        let back = try WebRTCClientMessage.decode(again)
        check(back == message, "round trip changed \(message) into \(back)")
    } catch {
        // Escaping can make a message within its field limit longer than the whole-message limit: only then.
        check(again.count > WebRTCClientMessage.messageLimit, "round trip of \(message) refused: \(error.message)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    exercise(Data(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
