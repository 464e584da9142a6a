// peer_distinguished_name (declared in tls_context.h): the subject as Java's
// X500Principal.getName() writes it, so mapping rules written for Kafka
// match the same text here.
#include <openssl/x509.h>
#include <openssl/objects.h>

#include <string>

#include "security/tls_context.h"

namespace spool::security {
namespace {

// RFC 2253's keywords, the only ones Java's RFC 2253 form spells out.
const char* keyword(int nid) {
  switch (nid) {
    case NID_commonName: return "CN";
    case NID_countryName: return "C";
    case NID_localityName: return "L";
    case NID_stateOrProvinceName: return "ST";
    case NID_organizationName: return "O";
    case NID_organizationalUnitName: return "OU";
    case NID_streetAddress: return "STREET";
    case NID_domainComponent: return "DC";
    case NID_userId: return "UID";
    default: return nullptr;
  }
}

std::string escaped(const ASN1_STRING* value) {
  unsigned char* utf8 = nullptr;
  const int n = ASN1_STRING_to_UTF8(&utf8, value);
  if (n < 0) return "";
  std::string raw(reinterpret_cast<char*>(utf8), static_cast<size_t>(n));
  OPENSSL_free(utf8);
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    const bool special = c == ',' || c == '+' || c == '"' || c == '\\' || c == '<' || c == '>' || c == ';' ||
                         (c == '#' && i == 0) || (c == ' ' && (i == 0 || i + 1 == raw.size()));
    if (special) out += '\\';
    out += c;
  }
  return out;
}

// Java's form for attributes without an RFC 2253 keyword: OID=#<DER in hex>.
std::string oid_and_hex(const X509_NAME_ENTRY* entry) {
  char oid[128];
  OBJ_obj2txt(oid, sizeof oid, X509_NAME_ENTRY_get_object(entry), 1);
  const ASN1_STRING* value = X509_NAME_ENTRY_get_data(entry);
  ASN1_TYPE* type = ASN1_TYPE_new();
  ASN1_TYPE_set1(type, ASN1_STRING_type(value), value);
  unsigned char* der = nullptr;
  const int n = i2d_ASN1_TYPE(type, &der);
  ASN1_TYPE_free(type);
  static const char kHex[] = "0123456789abcdef";
  std::string out = std::string(oid) + "=#";
  for (int i = 0; i < n; ++i) {
    out += kHex[der[i] >> 4];
    out += kHex[der[i] & 15];
  }
  OPENSSL_free(der);
  return out;
}

}  // namespace

std::string peer_distinguished_name(const SSL* ssl) {
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (cert == nullptr) return "";
  const X509_NAME* name = X509_get_subject_name(cert);
  std::string out;
  const int count = X509_NAME_entry_count(name);
  // Most specific first: the reverse of the certificate's order. Entries of
  // one multi-valued RDN share a set number and are joined by '+'.
  int last_set = -1;
  for (int i = count - 1; i >= 0; --i) {
    const X509_NAME_ENTRY* e = X509_NAME_get_entry(name, i);
    const int set = X509_NAME_ENTRY_set(e);
    if (!out.empty()) out += set == last_set ? "+" : ",";
    last_set = set;
    const int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(e));
    if (const char* kw = keyword(nid)) {
      out += std::string(kw) + "=" + escaped(X509_NAME_ENTRY_get_data(e));
    } else {
      out += oid_and_hex(e);
    }
  }
  X509_free(cert);
  return out;
}

}  // namespace spool::security
