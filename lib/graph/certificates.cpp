// Certificates and keys with OpenSSL: PEM blocks read one at a time, X.509 parsed, validity
// compared with a given time, and the key matched with the leaf's public key.
#include "lib/graph/certificates.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <ctime>
#include <memory>
#include <string>

namespace pg::graph {

namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using Bio = std::unique_ptr<BIO, BioFree>;
using Certificate = std::unique_ptr<X509, X509Free>;
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;

Bio memoryBio(std::string_view text) {
  return Bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

// One PEM block: its label and DER bytes; false at the end or on a malformed block.
bool nextBlock(BIO* in, std::string& label, std::string& der) {
  char* name = nullptr;
  char* header = nullptr;
  unsigned char* data = nullptr;
  long length = 0;
  if (PEM_read_bio(in, &name, &header, &data, &length) != 1) return false;
  label = name;
  der.assign(reinterpret_cast<const char*>(data), static_cast<std::size_t>(length));
  OPENSSL_free(name);
  OPENSSL_free(header);
  OPENSSL_free(data);
  return true;
}

Certificate parseCertificate(const std::string& der) {
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  return Certificate(d2i_X509(nullptr, &p, static_cast<long>(der.size())));
}

bool validAt(X509* certificate, std::int64_t now) {
  std::time_t t = static_cast<std::time_t>(now);
  return X509_cmp_time(X509_get0_notBefore(certificate), &t) <= 0 &&
         X509_cmp_time(X509_get0_notAfter(certificate), &t) >= 0;
}

}  // namespace

CertificateCheck checkServingCertificate(std::string_view certificatePem,
                                         std::string_view keyPem, bool checkValidity,
                                         std::int64_t now) {
  CertificateCheck out;
  // The leaf: the first certificate that parses (and, with checkValidity, is in its period).
  Certificate leaf;
  bool anyParsed = false;
  if (Bio in = memoryBio(certificatePem)) {
    std::string label;
    std::string der;
    while (nextBlock(in.get(), label, der)) {
      if (label != "CERTIFICATE") continue;
      Certificate c = parseCertificate(der);
      if (!c) continue;
      anyParsed = true;
      if (checkValidity && !validAt(c.get(), now)) continue;
      if (!leaf) leaf = std::move(c);
    }
  }
  ERR_clear_error();
  if (!leaf) {
    out.expired = anyParsed;
    out.problem = anyParsed ? "every certificate in tls.crt is expired or not yet valid"
                            : "unable to decode pem data for certificate";
    return out;
  }

  Bio in = memoryBio(keyPem);
  std::string label;
  std::string der;
  if (!in || !nextBlock(in.get(), label, der)) {
    ERR_clear_error();
    out.problem = "unable to decode pem data in tls.key";
    return out;
  }
  if (label != "PRIVATE KEY" && label != "RSA PRIVATE KEY" && label != "EC PRIVATE KEY") {
    out.problem = label + " key format found in tls.key, supported formats are PKCS1, PKCS8 or EC";
    return out;
  }
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  Key key(d2i_AutoPrivateKey(nullptr, &p, static_cast<long>(der.size())));
  if (!key) {
    ERR_clear_error();
    out.problem = "unable to parse the private key in tls.key";
    return out;
  }
  if (X509_check_private_key(leaf.get(), key.get()) != 1) {
    ERR_clear_error();
    out.problem = "tls: private key does not match public key";
  }
  return out;
}

}  // namespace pg::graph
