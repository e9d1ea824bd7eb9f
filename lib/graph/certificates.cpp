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
#include <mutex>
#include <string>
#include <unordered_map>

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

// Both answers from one parse: ignoring validity (the leaf is the first certificate that
// parses) and judged at `now` (the first that parses and is in its period).
struct Answers {
  CertificateCheck ignoringValidity;
  CertificateCheck withValidity;
  std::int64_t at = 0;
};

// Whether Go's TLS stack loads the key (crypto/tls parsePrivateKey: PKCS#1 or PKCS#8 RSA,
// ECDSA on the NIST curves crypto/elliptic knows, Ed25519): OpenSSL also reads Ed448, RSA-PSS
// and other curves, which the controller refuses.
bool goLoadsKey(EVP_PKEY* key) {
  switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_RSA:
    case EVP_PKEY_ED25519:
      return true;
    case EVP_PKEY_EC: {
      char group[64] = {};
      std::size_t length = 0;
      if (EVP_PKEY_get_group_name(key, group, sizeof group, &length) != 1) return false;
      const std::string_view name(group, length);
      return name == "prime256v1" || name == "secp384r1" || name == "secp521r1" ||
             name == "secp224r1";
    }
    default:
      return false;
  }
}

// The key's problem with `leaf`, or empty; `key` is parsed once by the caller.
std::string keyProblem(X509* leaf, EVP_PKEY* key) {
  if (X509_check_private_key(leaf, key) == 1) return {};
  ERR_clear_error();
  return "tls: private key does not match public key";
}

Answers check(std::string_view certificatePem, std::string_view keyPem, std::int64_t now) {
  Answers out;
  out.at = now;
  Certificate first;  // the first certificate that parses
  Certificate valid;  // the first that parses and is valid at `now`
  if (Bio in = memoryBio(certificatePem)) {
    std::string label;
    std::string der;
    while (nextBlock(in.get(), label, der)) {
      if (label != "CERTIFICATE") continue;
      Certificate c = parseCertificate(der);
      if (!c) continue;
      if (!valid && validAt(c.get(), now)) {
        X509_up_ref(c.get());  // held by both when it is also the first
        valid.reset(c.get());
      }
      if (!first) first = std::move(c);
    }
  }
  ERR_clear_error();
  if (!first) {
    out.ignoringValidity.problem = "unable to decode pem data for certificate";
    out.withValidity = out.ignoringValidity;
    return out;
  }
  if (!valid) {
    out.withValidity.expired = true;
    out.withValidity.problem = "every certificate in tls.crt is expired or not yet valid";
  }

  std::string keyError;
  Bio in = memoryBio(keyPem);
  std::string label;
  std::string der;
  Key key;
  if (!in || !nextBlock(in.get(), label, der)) {
    ERR_clear_error();
    keyError = "unable to decode pem data in tls.key";
  } else if (label != "PRIVATE KEY" && label != "RSA PRIVATE KEY" && label != "EC PRIVATE KEY") {
    keyError = label + " key format found in tls.key, supported formats are PKCS1, PKCS8 or EC";
  } else {
    const auto* p = reinterpret_cast<const unsigned char*>(der.data());
    key.reset(d2i_AutoPrivateKey(nullptr, &p, static_cast<long>(der.size())));
    if (!key || !goLoadsKey(key.get())) {
      ERR_clear_error();
      key.reset();
      keyError = "unable to parse the private key in tls.key";
    }
  }
  out.ignoringValidity.problem = key ? keyProblem(first.get(), key.get()) : keyError;
  if (valid) out.withValidity.problem = key ? keyProblem(valid.get(), key.get()) : keyError;
  return out;
}

}  // namespace

// Answers are kept by content: OpenSSL 3 sets up its key decoders anew for every key (about
// five million instructions), and a repository's listeners share a few certificates.
CertificateCheck checkServingCertificate(std::string_view certificatePem,
                                         std::string_view keyPem, bool checkValidity,
                                         std::int64_t now) {
  static std::mutex mutex;
  static std::unordered_map<std::string, Answers> answers;
  std::string key;
  key.reserve(certificatePem.size() + keyPem.size() + 1);
  key.append(certificatePem).append(1, '\0').append(keyPem);
  std::unique_lock<std::mutex> lock(mutex);
  auto it = answers.find(key);
  if (it == answers.end() || it->second.at != now) {
    lock.unlock();
    Answers a = check(certificatePem, keyPem, now);
    lock.lock();
    it = answers.insert_or_assign(std::move(key), std::move(a)).first;
  }
  return checkValidity ? it->second.withValidity : it->second.ignoringValidity;
}

}  // namespace pg::graph
