import Testing
import Timing

@Suite struct BackoffTests {
    @Test func restartAfterFiveSecondsDoublingToSixty() {
        var b = Backoff(first: 5, maximum: 60)
        #expect((0..<7).map { _ in b.next() } == [5, 10, 20, 40, 60, 60, 60])
        #expect(b.failures == 7)
        b.reset()
        #expect(b.next() == 5)
    }

    @Test func currentDoesNotCountAFailure() {
        var b = Backoff(first: 1, maximum: 30)
        #expect(b.current == 1)
        #expect(b.current == 1)
        _ = b.next()
        #expect(b.current == 2)
    }

    @Test func boundsAreKeptSane() {
        let b = Backoff(first: 10, maximum: 5, factor: 0.5)
        #expect(b.maximum == 10)
        #expect(b.factor == 1)
    }
}
