// Serving certificates read as a controller's TLS library reads them (lib/graph/certificates):
// the leaf parses, the key is of a supported form and matches it, and validity is judged at a
// given time when asked.
#include <doctest/doctest.h>

#include "lib/graph/certificates.h"

using pg::graph::checkServingCertificate;

namespace {

// Ed25519, example.com, valid 2024-01-01 to 2124-01-01.
constexpr const char* kValidCrt = R"(-----BEGIN CERTIFICATE-----
MIIBCTCBvKADAgECAhQ59dFIMFJJ/Kmk6ca+kS0f8qEGVDAFBgMrZXAwFjEUMBIG
A1UEAwwLZXhhbXBsZS5jb20wIBcNMjQwMTAxMDAwMDAwWhgPMjEyNDAxMDEwMDAw
MDBaMBYxFDASBgNVBAMMC2V4YW1wbGUuY29tMCowBQYDK2VwAyEA6odTYyMQHRQr
mWnfCiFivrBVmQHnzmkx42TAbBeK4RajGjAYMBYGA1UdEQQPMA2CC2V4YW1wbGUu
Y29tMAUGAytlcANBAOcvOFTgb+CjHnA94p0v+/VoI21/eP8g47iHw/NDnNGGMZ1E
zlW6ym+ETu5F1Qp38fiD6dyHAETNx16zBH9ebQ4=
-----END CERTIFICATE-----
)";
constexpr const char* kValidKey = R"(-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIHcJEpifOA+xMX8LC6TYhoiZep8ugE4gtE0yrY93oOTv
-----END PRIVATE KEY-----
)";
// Another key pair's key.
constexpr const char* kOtherKey = R"(-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIC3cjr+zw0/iUp7fxXnaehSFI87ShrOq8p2zTGZasfvE
-----END PRIVATE KEY-----
)";
// Valid 2000-01-01 to 2001-01-01.
constexpr const char* kExpiredCrt = R"(-----BEGIN CERTIFICATE-----
MIIBHzCB0qADAgECAhRm3Vqbf+sZf+kCXYP8QqjnjDwuizAFBgMrZXAwHjEcMBoG
A1UEAwwTZXhwaXJlZC5leGFtcGxlLmNvbTAeFw0wMDAxMDEwMDAwMDBaFw0wMTAx
MDEwMDAwMDBaMB4xHDAaBgNVBAMME2V4cGlyZWQuZXhhbXBsZS5jb20wKjAFBgMr
ZXADIQB3ali4/dnJyCB7eoE1XhEOFCrVcobpATH3PlspJd/Tb6MiMCAwHgYDVR0R
BBcwFYITZXhwaXJlZC5leGFtcGxlLmNvbTAFBgMrZXADQQBi9Z/+WLwVd2vlJ9Vz
vhU58YfojyB4TjLRqqUSVoJ0kIA0cotv9B3C+Woo6OL2Yf9t4hKW2DSJ0pPUrm5X
ESAG
-----END CERTIFICATE-----
)";
constexpr const char* kExpiredKey = R"(-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIJyPfGfUUbFzeTLD/fJWpg2/wxhzw9gvZqbDtY68/HSa
-----END PRIVATE KEY-----
)";

// Ed448 and secp256k1 pairs (valid 2026-11-29 to 2126): OpenSSL reads them, Go's TLS stack
// (crypto/tls parsePrivateKey) does not.
constexpr const char* kEd448Crt = R"(-----BEGIN CERTIFICATE-----
MIIBjjCCAQ6gAwIBAgIUcRO/rBCxr2do39lZQ0mH9cfTEUowBQYDK2VxMBYxFDAS
BgNVBAMMC2V4YW1wbGUuY29tMCAXDTI2MTEyOTEzMDMzM1oYDzIxMjYxMTA1MTMw
MzMzWjAWMRQwEgYDVQQDDAtleGFtcGxlLmNvbTBDMAUGAytlcQM6ABhyfcug4lNe
JwTQ83W56bPexDszmUUcsLXG+8EpJmHXnfm+A0zDWTVqXeu1TDQ9FQzWbkKLw0Vy
AKNTMFEwHQYDVR0OBBYEFE1XIH17Qj0U87QeeeMc3P6O2PXVMB8GA1UdIwQYMBaA
FE1XIH17Qj0U87QeeeMc3P6O2PXVMA8GA1UdEwEB/wQFMAMBAf8wBQYDK2VxA3MA
Gr2eXOd3Xx8vr7+D/wTHxPZ00nhd/1nnPqRjwbwYJkpScf33g3DPIoShw1lWaBuU
+oDUGQ4p/O6A5I5dETEgRAtfbSyU4sUgnrMCwgaGpRdV3V/HG4piQwNA2xcurXWz
r1DmjHCxJIEPyIkI3gzcFxMA
-----END CERTIFICATE-----
)";
constexpr const char* kEd448Key = R"(-----BEGIN PRIVATE KEY-----
MEcCAQAwBQYDK2VxBDsEOV4hl7kQX4zXy14ie2XI14Sv+maUqeJF9VoJtFXwY+H3
TZVpmZMe1UguBs+0cs12fJIMAmZpM5FPfw==
-----END PRIVATE KEY-----
)";
constexpr const char* kSecp256k1Crt = R"(-----BEGIN CERTIFICATE-----
MIIBgDCCASagAwIBAgIUURO1dpvk+kVWyK9oA+CwQuU0eIAwCgYIKoZIzj0EAwIw
FjEUMBIGA1UEAwwLZXhhbXBsZS5jb20wIBcNMjYxMTI5MTMwMzMzWhgPMjEyNjEx
MDUxMzAzMzNaMBYxFDASBgNVBAMMC2V4YW1wbGUuY29tMFYwEAYHKoZIzj0CAQYF
K4EEAAoDQgAEEBukLo5Q5qEWfGuowo+kSSDT2UAutKocPMaiELqN9el9xh/ph+g9
ZdBempDIB5zGSoyhu2slqRFaaqVmZstEXKNTMFEwHQYDVR0OBBYEFMu5hrsU+SpN
WlYACy/CS3AChEodMB8GA1UdIwQYMBaAFMu5hrsU+SpNWlYACy/CS3AChEodMA8G
A1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIgYfGxlX98LlbzKSfYx79n
7cXuv7mzAZHnDkKs62/jVFUCIQCVVdA76hrpQce1RpbRj58inr2kewsFAFx5nMmk
Qa+4LA==
-----END CERTIFICATE-----
)";
constexpr const char* kSecp256k1Key = R"(-----BEGIN PRIVATE KEY-----
MIGEAgEAMBAGByqGSM49AgEGBSuBBAAKBG0wawIBAQQgt84aWmsYEWtc+GRT5PdO
a8wpSGtIuLyJYIEy+7NrysGhRANCAAQQG6QujlDmoRZ8a6jCj6RJINPZQC60qhw8
xqIQuo316X3GH+mH6D1l0F6akMgHnMZKjKG7ayWpEVpqpWZmy0Rc
-----END PRIVATE KEY-----
)";

constexpr std::int64_t k2026 = 1795000000;  // 2026-11
constexpr std::int64_t k2000 = 960000000;   // 2000-06
constexpr std::int64_t k2023 = 1690000000;  // 2023-07

}  // namespace

TEST_CASE("serving certificates: key types as Go's TLS stack loads them") {
  CHECK(checkServingCertificate(kEd448Crt, kEd448Key, false, k2026).problem ==
        "unable to parse the private key in tls.key");
  CHECK(checkServingCertificate(kSecp256k1Crt, kSecp256k1Key, false, k2026).problem ==
        "unable to parse the private key in tls.key");
}

TEST_CASE("serving certificates: parse, key form, key match and validity") {
  CHECK(checkServingCertificate(kValidCrt, kValidKey, true, k2026).problem.empty());
  CHECK(checkServingCertificate(kValidCrt, kOtherKey, false, k2026).problem ==
        "tls: private key does not match public key");

  // Validity only when asked, and at the time given.
  auto expired = checkServingCertificate(kExpiredCrt, kExpiredKey, true, k2026);
  CHECK(expired.expired);
  CHECK_FALSE(expired.problem.empty());
  CHECK(checkServingCertificate(kExpiredCrt, kExpiredKey, false, k2026).problem.empty());
  CHECK(checkServingCertificate(kExpiredCrt, kExpiredKey, true, k2000).problem.empty());
  CHECK_FALSE(checkServingCertificate(kValidCrt, kValidKey, true, k2023).problem.empty());

  // A chain whose first certificate expired is served by the next one; the key matches it.
  std::string chain = std::string(kExpiredCrt) + kValidCrt;
  CHECK(checkServingCertificate(chain, kValidKey, true, k2026).problem.empty());
  CHECK_FALSE(checkServingCertificate(chain, kValidKey, false, k2026).problem.empty());

  CHECK(checkServingCertificate("not a certificate", kValidKey, false, k2026).problem ==
        "unable to decode pem data for certificate");
  CHECK(checkServingCertificate("-----BEGIN CERTIFICATE-----\nMIIBITCB0gIBATAF\n"
                                "-----END CERTIFICATE-----\n",
                                kValidKey, false, k2026)
            .problem == "unable to decode pem data for certificate");
  CHECK(checkServingCertificate(kValidCrt, "", false, k2026).problem ==
        "unable to decode pem data in tls.key");
  CHECK(checkServingCertificate(kValidCrt,
                                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n"
                                "-----END ENCRYPTED PRIVATE KEY-----\n",
                                false, k2026)
            .problem ==
        "ENCRYPTED PRIVATE KEY key format found in tls.key, supported formats are PKCS1, PKCS8 or EC");
  CHECK(checkServingCertificate(kValidCrt,
                                "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
                                false, k2026)
            .problem == "unable to parse the private key in tls.key");
}
