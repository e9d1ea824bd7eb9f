// What a Gateway controller finds wrong with a TLS Secret's certificate and private key, read
// with OpenSSL (libcrypto) as Go's crypto/x509 and crypto/tls read them. The only file that
// sees OpenSSL's types is certificates.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pg::graph {

struct CertificateCheck {
  // Every certificate of the chain is outside its validity period (with `checkValidity`).
  bool expired = false;
  // Why the pair cannot serve, in the controller's words ("unable to decode pem data for
  // certificate", "tls: private key does not match public key"); empty when it can.
  std::string problem;
};

// Checks a serving certificate (`tls.crt`: one or more PEM CERTIFICATE blocks, the leaf
// first) and its key (`tls.key`: a PKCS#8, PKCS#1 or SEC 1 PEM key that matches the leaf).
// With `checkValidity`, certificates whose validity period does not hold `now` (seconds since
// the epoch) are left out, and none left is a problem. Thread-safe; answers are remembered by
// content for the rest of the process.
CertificateCheck checkServingCertificate(std::string_view certificatePem,
                                         std::string_view keyPem, bool checkValidity,
                                         std::int64_t now);

}  // namespace pg::graph
