import Timing

extension MQTTClient {
    /// Calls `connect` until an attempt starts the network thread (from then on the client retries by itself):
    /// after each attempt that fails at once and may succeed later, `onRetry` gets the reason and the caller's thread
    /// sleeps `backoff`'s next delay on `clock`, unless `wake` is signalled (then false: stopped meanwhile). An
    /// error that no retry can cure (bad arguments, TLS set-up) is thrown. True once an attempt started.
    public func connectRetrying(
        host: String, port: Int, will: Will?, backoff: Backoff = MQTTClient.reconnectBackoff, clock: any HostClock, wake: Wakeup,
        onRetry: (String) -> Void
    ) throws(MQTTError) -> Bool {
        var backoff = backoff
        while true {
            do throws(MQTTError) {
                try connect(host: host, port: port, will: will)
                return true
            } catch {
                guard error.isRetryable else { throw error }
                onRetry(error.message)
            }
            if clock.sleep(seconds: backoff.next(), unlessSignalled: wake) { return false }
        }
    }
}
