import CMosquitto
import Foundation

/// A libmosquitto failure, with the library's own text (`mosquitto_strerror`, or `strerror(errno)` when
/// the library says the system call failed).
public struct MQTTError: Error, Equatable, CustomStringConvertible {
    /// libmosquitto's `MOSQ_ERR_*` code (`MQTTError.queueFull` is ours).
    public var code: Int32
    /// What went wrong, as the library words it.
    public var message: String
    public var description: String { message }

    /// Code of the refusal when `MQTTClient.pendingLimit` messages wait to be written.
    public static let queueFullCode: Int32 = -1000

    /// The error for a libmosquitto return code; `errno` is read at once, for `MOSQ_ERR_ERRNO`.
    init(code: Int32) {
        self.code = code
        if code == Int32(MOSQ_ERR_ERRNO.rawValue) {
            message = String(cString: strerror(errno))
        } else {
            message = String(cString: mosquitto_strerror(code))
        }
    }

    init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// False for errors trying again cannot mend (bad arguments, no memory, not supported).
    public var isRetryable: Bool {
        ![MOSQ_ERR_INVAL, MOSQ_ERR_NOMEM, MOSQ_ERR_NOT_SUPPORTED, MOSQ_ERR_PAYLOAD_SIZE, MOSQ_ERR_TLS].contains { Int32($0.rawValue) == code }
    }
}
