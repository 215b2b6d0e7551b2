/// The release this source tree is: `viewfinder --version` prints it and `launch/package` names the Debian
/// package after it (`viewfinder_VERSION_amd64.deb`). Raised with each release, in this one place.
enum ViewfinderVersion {
    static let string = "0.29.0"
}
