// The tiers' tags and `.tier` (Tests/TestTags) come with TestSupport: a test file importing TestSupport can tag its
// suites without another import.
@_exported import TestTags
