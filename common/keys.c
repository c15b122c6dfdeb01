/* SPDX-License-Identifier: Apache-2.0 */
#include "bx_common.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#define BX_KEYFILE_MAX (64 * 1024)

int bx_key_generate(bx_alg alg, EVP_PKEY **out, bx_error *err)
{
    EVP_PKEY *k = NULL;
    if (alg == BX_ALG_ED25519)
        k = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
    else if (alg == BX_ALG_ECDSA_P256)
        k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    else
        return bx_error_set(err, BX_EUNSUPPORTED, NULL, "unsupported key algorithm");
    if (!k)
        return bx_error_ssl(err, BX_EENV, NULL, "key generation failed");
    *out = k;
    return 0;
}

bx_alg bx_key_alg(const EVP_PKEY *key)
{
    if (EVP_PKEY_is_a(key, "ED25519"))
        return BX_ALG_ED25519;
    if (EVP_PKEY_is_a(key, "EC")) {
        char curve[64] = "";
        size_t n = 0;
        if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, curve, sizeof curve,
                                           &n) == 1 &&
            (strcmp(curve, "prime256v1") == 0 || strcmp(curve, "P-256") == 0))
            return BX_ALG_ECDSA_P256;
    }
    return 0;
}

/* A key's keyid, once computed, is kept with the key (its ex_data, freed with it): a
 * signer signing many certificates with one key encodes it once. */
static int keyid_index = -1;
static pthread_once_t keyid_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t keyid_mu = PTHREAD_MUTEX_INITIALIZER;

static void keyid_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
    (void)parent, (void)ad, (void)idx, (void)argl, (void)argp;
    OPENSSL_free(ptr);
}

static void keyid_init(void)
{
    keyid_index = EVP_PKEY_get_ex_new_index(0, NULL, NULL, NULL, keyid_free);
}

static void keyid_keep(EVP_PKEY *key, const char hex[65])
{
    char *kept;

    pthread_once(&keyid_once, keyid_init);
    if (keyid_index < 0 || !(kept = OPENSSL_malloc(65)))
        return;
    memcpy(kept, hex, 65);
    pthread_mutex_lock(&keyid_mu);
    if (EVP_PKEY_get_ex_data(key, keyid_index) || !EVP_PKEY_set_ex_data(key, keyid_index, kept))
        OPENSSL_free(kept);
    pthread_mutex_unlock(&keyid_mu);
}

int bx_key_id(const EVP_PKEY *key, char out[65], bx_error *err)
{
    unsigned char *der = NULL;
    char *kept = NULL;
    int n;

    pthread_once(&keyid_once, keyid_init);
    if (keyid_index >= 0) {
        pthread_mutex_lock(&keyid_mu);
        kept = EVP_PKEY_get_ex_data(key, keyid_index);
        if (kept)
            memcpy(out, kept, 65);
        pthread_mutex_unlock(&keyid_mu);
        if (kept)
            return 0;
    }
    if ((n = i2d_PUBKEY((EVP_PKEY *)key, &der)) <= 0)
        return bx_error_ssl(err, BX_EINVAL, NULL, "cannot encode public key");
    bx_sha256_hex(der, (size_t)n, out);
    OPENSSL_free(der);
    keyid_keep((EVP_PKEY *)key, out);
    return 0;
}

static int bio_to_string(BIO *b, char **out, bx_error *err)
{
    char *data = NULL;
    long n = BIO_get_mem_data(b, &data);
    char *s = malloc((size_t)n + 1);
    if (!s)
        return bx_error_set(err, BX_ENOMEM, NULL, "out of memory");
    memcpy(s, data, (size_t)n);
    s[n] = '\0';
    *out = s;
    return 0;
}

int bx_key_private_pem(const EVP_PKEY *key, const char *passphrase, char **out, bx_error *err)
{
    int rc = 0;
    BIO *b = BIO_new(BIO_s_mem());
    if (!b)
        return bx_error_ssl(err, BX_ENOMEM, NULL, "out of memory");
    const EVP_CIPHER *c = passphrase ? EVP_aes_256_cbc() : NULL;
    if (!PEM_write_bio_PKCS8PrivateKey(b, (EVP_PKEY *)key, c, passphrase ? (char *)passphrase : NULL,
                                       passphrase ? (int)strlen(passphrase) : 0, NULL, NULL)) {
        rc = bx_error_ssl(err, BX_EENV, NULL, "cannot encode private key");
        goto out;
    }
    rc = bio_to_string(b, out, err);
out:
    BIO_free(b);
    return rc;
}

int bx_key_public_pem(const EVP_PKEY *key, char **out, bx_error *err)
{
    int rc = 0;
    BIO *b = BIO_new(BIO_s_mem());
    if (!b)
        return bx_error_ssl(err, BX_ENOMEM, NULL, "out of memory");
    if (!PEM_write_bio_PUBKEY(b, (EVP_PKEY *)key)) {
        rc = bx_error_ssl(err, BX_EENV, NULL, "cannot encode public key");
        goto out;
    }
    rc = bio_to_string(b, out, err);
out:
    BIO_free(b);
    return rc;
}

/* Read a passphrase: BOXCERT_KEY_PASSPHRASE_FILE (first line), else the terminal. */
int bx_passphrase_read(char *buf, size_t len, const char *prompt, bx_error *err)
{
    const char *f = getenv("BOXCERT_KEY_PASSPHRASE_FILE");
    if (f && *f) {
        char *data = NULL;
        size_t n = 0;
        int rc = bx_read_file(f, 4096, 0, &data, &n, err);
        if (rc)
            return rc;
        size_t i = 0;
        while (i < n && data[i] != '\n' && data[i] != '\r' && i + 1 < len) {
            buf[i] = data[i];
            i++;
        }
        buf[i] = '\0';
        OPENSSL_cleanse(data, n);
        free(data);
        if (i == 0)
            return bx_error_set(err, BX_ECONFIG, f, "passphrase file is empty");
        return 0;
    }
    int fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return bx_error_set(err, BX_ECONFIG, NULL,
                            "a passphrase is needed: no terminal and no BOXCERT_KEY_PASSPHRASE_FILE");
    struct termios old, noecho;
    int have_tc = tcgetattr(fd, &old) == 0;
    if (have_tc) {
        noecho = old;
        noecho.c_lflag &= ~(tcflag_t)ECHO;
        tcsetattr(fd, TCSAFLUSH, &noecho);
    }
    if (write(fd, prompt, strlen(prompt)) < 0) {
        /* the prompt is a courtesy */
    }
    size_t i = 0;
    char c;
    while (i + 1 < len && read(fd, &c, 1) == 1 && c != '\n' && c != '\r')
        buf[i++] = c;
    buf[i] = '\0';
    if (have_tc)
        tcsetattr(fd, TCSAFLUSH, &old);
    if (write(fd, "\n", 1) < 0) {
        /* ignore */
    }
    close(fd);
    if (i == 0)
        return bx_error_set(err, BX_ECONFIG, NULL, "empty passphrase");
    return 0;
}

/* The checks a private key file must pass before it is read: fd open on it, st its fstat. */
static int key_file_ok(const char *path, int fd, struct stat *st, bx_error *err)
{
    if (fd < 0)
        return errno == ENXIO ? bx_error_set(err, BX_ECONFIG, path, "private key is not a regular file")
                              : bx_error_errno(err, BX_ECONFIG, path, "cannot open private key");
    if (fstat(fd, st) != 0)
        return bx_error_errno(err, BX_ECONFIG, path, "cannot stat private key");
    if (!S_ISREG(st->st_mode))
        return bx_error_set(err, BX_ECONFIG, path, "private key is not a regular file");
    if (st->st_uid != geteuid())
        return bx_error_set(err, BX_ECONFIG, path,
                            "private key is owned by uid %u, not by the caller",
                            (unsigned)st->st_uid);
    if (st->st_mode & (S_IRWXG | S_IRWXO))
        return bx_error_set(err, BX_ECONFIG, path,
                            "private key is accessible by group or others (mode %04o; want 0600)",
                            (unsigned)(st->st_mode & 07777));
    if (st->st_size <= 0 || st->st_size > BX_KEYFILE_MAX)
        return bx_error_set(err, BX_ECONFIG, path, "private key file is empty or too large");
    return 0;
}

int bx_key_check_private(const char *path, bx_error *err)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), rc;
    struct stat st;

    rc = key_file_ok(path, fd, &st, err);
    if (fd >= 0)
        close(fd);
    return rc;
}

static void pem_label(const char *s, size_t len, char *out, size_t n);
static int pem_block_der(const char *pem, size_t len, const char *want, unsigned char **der,
                         size_t *dlen, char *why, size_t nwhy);

int bx_key_load_private(const char *path, const char *passphrase, EVP_PKEY **out, bx_error *err)
{
    int rc = 0, fd = -1;
    char *data = NULL;
    BIO *b = NULL;
    EVP_PKEY *k = NULL;
    char pass[1024] = "", label[48], why[192];
    struct stat st;
    ssize_t n = 0;
    size_t len = 0, dlen = 0;
    unsigned char *der = NULL;

    /* O_NONBLOCK: a FIFO or a device named as the key must not block the open; what is not
     * a regular file is refused before a byte is read */
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if ((rc = key_file_ok(path, fd, &st, err)) != 0)
        goto out;
    data = malloc((size_t)st.st_size + 1);
    if (!data) {
        rc = bx_error_set(err, BX_ENOMEM, path, "out of memory");
        goto out;
    }
    while (len < (size_t)st.st_size) {
        n = read(fd, data + len, (size_t)st.st_size - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    if (len != (size_t)st.st_size) {
        rc = bx_error_errno(err, BX_ECONFIG, path, "cannot read private key");
        goto out;
    }
    data[len] = '\0';
    /* one PKCS#8 block and nothing else, read as strictly as a public key's */
    pem_label(data, len, label, sizeof label);
    rc = pem_block_der(data, len,
                       strcmp(label, "ENCRYPTED PRIVATE KEY") == 0 ||
                               (!label[0] && strstr(data, "-----BEGIN ENCRYPTED PRIVATE KEY-----"))
                           ? "ENCRYPTED PRIVATE KEY"
                           : "PRIVATE KEY",
                       &der, &dlen, why, sizeof why);
    if (der) {
        OPENSSL_cleanse(der, dlen);
        free(der);
    }
    if (rc) {
        rc = bx_error_set(err, rc == BX_ENOMEM ? BX_ENOMEM : BX_ECONFIG, path,
                          "cannot read private key: %s (want one PKCS#8 PEM block)", why);
        goto out;
    }
    b = BIO_new_mem_buf(data, (int)len);
    if (!b) {
        rc = bx_error_ssl(err, BX_ENOMEM, path, "out of memory");
        goto out;
    }
    if (strstr(data, "BEGIN ENCRYPTED PRIVATE KEY")) {
        if (passphrase)
            snprintf(pass, sizeof pass, "%s", passphrase);
        else if ((rc = bx_passphrase_read(pass, sizeof pass, "Passphrase: ", err)) != 0)
            goto out;
    }
    k = PEM_read_bio_PrivateKey(b, NULL, NULL, pass);
    if (!k) {
        rc = bx_error_ssl(err, BX_ECONFIG, path, "cannot read private key (wrong passphrase or not PKCS#8 PEM)");
        goto out;
    }
    if (!bx_key_alg(k)) {
        rc = bx_error_set(err, BX_ECONFIG, path, "unsupported key type (want Ed25519 or ECDSA P-256)");
        goto out;
    }
    *out = k;
    k = NULL;
out:
    OPENSSL_cleanse(pass, sizeof pass);
    if (data) {
        OPENSSL_cleanse(data, len);
        free(data);
    }
    BIO_free(b);
    EVP_PKEY_free(k);
    if (fd >= 0)
        close(fd);
    return rc;
}

/* ---- public key files, read strictly ---------------------------------------------------------
 * One reader for every public key boxcert trusts (a policy's trust.keys, --key,
 * --verify-key): a file that is exactly one PUBLIC KEY block (RFC 7468's strict form: the
 * BEGIN line, base64 in lines of 64 characters with a shorter last line, the END line, then
 * nothing but one line end; LF or CRLF, the same on every line), holding the DER of a
 * SubjectPublicKeyInfo that is Ed25519 as RFC 8410 writes it (no parameters, 32 bytes) or
 * an id-ecPublicKey on the named curve prime256v1 with an uncompressed or compressed point
 * on the curve. DER is checked as DER: definite, minimal lengths, nothing after any
 * element. Anything else is refused with the reason; nothing is left to OpenSSL's decoders,
 * which take text around a block, bytes after the DER, BER lengths and explicit curves. */

static const unsigned char oid_ed25519[] = {0x2b, 0x65, 0x70};
static const unsigned char oid_ec_public_key[] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01};
static const unsigned char oid_prime256v1[] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};

/* Key types named by what they are when refused. */
static const struct {
    const unsigned char *oid;
    size_t n;
    const char *name;
} other_algs[] = {
    {(const unsigned char *)"\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01", 9, "an RSA key"},
    {(const unsigned char *)"\x2a\x86\x48\x86\xf7\x0d\x01\x01\x0a", 9, "an RSA-PSS key"},
    {(const unsigned char *)"\x2a\x86\x48\xce\x38\x04\x01", 7, "a DSA key"},
    {(const unsigned char *)"\x2b\x65\x6e", 3, "an X25519 key"},
    {(const unsigned char *)"\x2b\x65\x6f", 3, "an X448 key"},
    {(const unsigned char *)"\x2b\x65\x71", 3, "an Ed448 key"},
};

typedef struct {
    const unsigned char *p; /* the element's content */
    size_t n;               /* its length */
    unsigned char tag;
} der_elem;

/* The next element of *p (*n bytes left), moving past it; NULL, or why it is not DER. */
static const char *der_next(const unsigned char **p, size_t *n, der_elem *e)
{
    const unsigned char *q = *p;
    size_t hdr = 2, len;

    if (*n < 2)
        return "cut short";
    e->tag = q[0];
    if ((q[0] & 0x1f) == 0x1f)
        return "a multi-byte tag";
    if (q[1] == 0x80)
        return "an indefinite length (BER, not DER)";
    if (q[1] < 0x80) {
        len = q[1];
    } else {
        size_t k = q[1] & 0x7f;
        if (k > 2)
            return "a length of more than two bytes";
        if (*n < 2 + k)
            return "cut short";
        if (q[2] == 0)
            return "a length with a leading zero byte (not DER)";
        len = k == 1 ? q[2] : (size_t)q[2] << 8 | q[3];
        if (len < 0x80)
            return "a long-form length under 128 (not DER)";
        hdr += k;
    }
    if (len > *n - hdr)
        return "a length past the end of the key";
    e->p = q + hdr;
    e->n = len;
    *p = q + hdr + len;
    *n -= hdr + len;
    return NULL;
}

static int oid_is(const der_elem *e, const unsigned char *oid, size_t n)
{
    return e->tag == 0x06 && e->n == n && memcmp(e->p, oid, n) == 0;
}

/* The algorithm and key bytes of the SPKI DER der[n]; NULL, or why it is refused. */
static const char *spki_read(const unsigned char *der, size_t n, bx_alg *alg,
                             const unsigned char **key, size_t *klen)
{
    der_elem spki, algid, oid, params, bits;
    const unsigned char *p = der;
    const char *why;
    size_t left = n;

    if ((why = der_next(&p, &left, &spki)) != NULL)
        return why;
    if (spki.tag != 0x30)
        return "not a SubjectPublicKeyInfo SEQUENCE";
    if (left)
        return "bytes after the key's SEQUENCE";
    p = spki.p, left = spki.n;
    if ((why = der_next(&p, &left, &algid)) != NULL || (why = der_next(&p, &left, &bits)) != NULL)
        return why;
    if (algid.tag != 0x30 || bits.tag != 0x03)
        return "not an AlgorithmIdentifier and a BIT STRING";
    if (left)
        return "bytes after the key's BIT STRING";
    if (bits.n < 1 || bits.p[0] != 0)
        return "a BIT STRING with unused bits";
    *key = bits.p + 1;
    *klen = bits.n - 1;
    p = algid.p, left = algid.n;
    if ((why = der_next(&p, &left, &oid)) != NULL)
        return why;
    if (oid_is(&oid, oid_ed25519, sizeof oid_ed25519)) {
        if (left)
            return "an Ed25519 AlgorithmIdentifier with parameters (RFC 8410: absent)";
        if (*klen != 32)
            return "an Ed25519 key that is not 32 bytes";
        *alg = BX_ALG_ED25519;
        return NULL;
    }
    if (oid_is(&oid, oid_ec_public_key, sizeof oid_ec_public_key)) {
        if (!left)
            return "an EC key with no curve (want the named curve prime256v1)";
        if ((why = der_next(&p, &left, &params)) != NULL)
            return why;
        if (params.tag == 0x30)
            return "an EC key with explicit curve parameters (want the named curve prime256v1)";
        if (!oid_is(&params, oid_prime256v1, sizeof oid_prime256v1))
            return "an EC key on a curve other than P-256 (prime256v1)";
        if (left)
            return "bytes after the curve's name";
        if (!(*klen == 65 && (*key)[0] == 0x04) &&
            !(*klen == 33 && ((*key)[0] == 0x02 || (*key)[0] == 0x03)))
            return "a P-256 point neither uncompressed (65 bytes, 0x04) nor compressed (33 "
                   "bytes, 0x02 or 0x03)";
        *alg = BX_ALG_ECDSA_P256;
        return NULL;
    }
    for (size_t i = 0; i < sizeof other_algs / sizeof other_algs[0]; i++)
        if (oid_is(&oid, other_algs[i].oid, other_algs[i].n))
            return other_algs[i].name;
    return oid.tag == 0x06 ? "a key of an unknown algorithm"
                           : "an AlgorithmIdentifier without an OID";
}

/* The key of alg from its bytes (a P-256 point on the curve, whichever form); NULL if not. */
static EVP_PKEY *key_from_bytes(bx_alg alg, const unsigned char *raw, size_t n)
{
    EVP_PKEY *k = NULL;
    EVP_PKEY_CTX *c = NULL;

    if (alg == BX_ALG_ED25519)
        return EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, raw, n);
    {
        char group[] = "prime256v1", form[] = "uncompressed";
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group, 0),
            OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT, form, 0),
            OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, (void *)raw, n),
            OSSL_PARAM_construct_end()};
        c = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
        if (!c || EVP_PKEY_fromdata_init(c) != 1 ||
            EVP_PKEY_fromdata(c, &k, EVP_PKEY_PUBLIC_KEY, params) != 1)
            goto fail;
        EVP_PKEY_CTX_free(c);
        /* fromdata decodes the point; the public check also makes sure it is on the curve
         * and not the point at infinity */
        c = EVP_PKEY_CTX_new_from_pkey(NULL, k, NULL);
        if (!c || EVP_PKEY_public_check(c) != 1)
            goto fail;
        EVP_PKEY_CTX_free(c);
        return k;
    }
fail:
    EVP_PKEY_CTX_free(c);
    EVP_PKEY_free(k);
    return NULL;
}

/* Into out[n]: the label of the BEGIN line at s (capitals, digits and spaces), "" if s is
 * not one. */
static void pem_label(const char *s, size_t len, char *out, size_t n)
{
    static const char begin[] = "-----BEGIN ";
    size_t i = sizeof begin - 1, o = 0;

    out[0] = '\0';
    if (len < i || memcmp(s, begin, i) != 0)
        return;
    for (; i < len && o + 1 < n &&
           (s[i] == ' ' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9'));
         i++)
        out[o++] = s[i];
    out[o] = '\0';
    if (len - i < 5 || memcmp(s + i, "-----", 5) != 0)
        out[0] = '\0';
}

/* Whether pem holds a private key anywhere: a BEGIN line whose label ends in PRIVATE KEY
 * (PKCS#8, encrypted or not, SEC1, PKCS#1, OpenSSH, ...) or a PuTTY key file; its label
 * into label[n]. Nothing of the key is copied. */
static int holds_private(const char *pem, size_t len, char *label, size_t n)
{
    static const char putty[] = "PuTTY-User-Key-File", tail[] = "PRIVATE KEY-----";

    for (const char *s = pem; (s = memmem(s, len - (size_t)(s - pem), "-----BEGIN ", 11)) != NULL;
         s++) {
        size_t l;
        pem_label(s, len - (size_t)(s - pem), label, n);
        l = strlen(label);
        if (l >= 11 && strcmp(label + l - 11, "PRIVATE KEY") == 0)
            return 1;
    }
    if (memmem(pem, len, tail, sizeof tail - 1)) {
        snprintf(label, n, "PRIVATE KEY");
        return 1;
    }
    if (memmem(pem, len, putty, sizeof putty - 1)) {
        snprintf(label, n, "PuTTY key file");
        return 1;
    }
    label[0] = '\0';
    return 0;
}

/* Whether s[len] at i is the line end eol ("\n" or "\r\n"). */
static int at_eol(const char *s, size_t len, size_t i, const char *eol)
{
    size_t n = strlen(eol);
    return len - i >= n && memcmp(s + i, eol, n) == 0;
}

static int only_line_ends(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != '\r' && s[i] != '\n')
            return 0;
    return 1;
}

/* Into *der (caller frees) the DER of the one block labelled want that is all of pem: RFC
 * 7468's strict form, nothing around it but one line end; else BX_ECONFIG (or BX_ENOMEM) and
 * the reason into why[nwhy]. */
static int pem_block_der(const char *pem, size_t len, const char *want, unsigned char **der,
                         size_t *dlen, char *why, size_t nwhy)
{
    char label[48], begin[80], end[80], *body = NULL, *again = NULL;
    size_t i = (size_t)snprintf(begin, sizeof begin, "-----BEGIN %s-----", want), o = 0, prev = 64;
    size_t endlen = (size_t)snprintf(end, sizeof end, "-----END %s-----", want), line;
    const char *w = NULL, *eol;
    int rc = BX_ECONFIG;

    *der = NULL;
    pem_label(pem, len, label, sizeof label);
    if (label[0] && strcmp(label, want) != 0) {
        snprintf(why, nwhy, "a PEM block labelled '%s', not '%s'", label, want);
        return BX_ECONFIG;
    }
    if (!label[0]) {
        if (memmem(pem, len, begin, i))
            snprintf(why, nwhy, "text before the %s block", want);
        else if ((len > 4 && memcmp(pem, "ssh-", 4) == 0) ||
                 (len > 6 && memcmp(pem, "ecdsa-", 6) == 0))
            snprintf(why, nwhy,
                     "an OpenSSH key line, not PEM (convert it with ssh-keygen -e -m PKCS8)");
        else
            snprintf(why, nwhy, "not a PEM %s block", want);
        return BX_ECONFIG;
    }
    eol = at_eol(pem, len, i, "\r\n") ? "\r\n" : "\n";
    if (!(body = malloc(len + 1))) {
        w = "out of memory";
        rc = BX_ENOMEM;
        goto refuse;
    }
    for (;;) {
        if (!at_eol(pem, len, i, eol)) {
            w = i >= len ? "no END line" : "line ends that are not all LF or all CRLF";
            goto refuse;
        }
        i += strlen(eol);
        for (line = 0; i + line < len && pem[i + line] != '\n' && pem[i + line] != '\r'; line++)
            ;
        if (line == endlen && memcmp(pem + i, end, line) == 0)
            break;
        /* RFC 7468's strict form: every line but the last is 64 characters, the last 1 to 64 */
        if (line >= 9 && memcmp(pem + i, "-----END ", 9) == 0) {
            w = "an END line that does not match the BEGIN line";
            goto refuse;
        }
        if (prev != 64 || line == 0 || line > 64) {
            w = line == 0 && i + line >= len ? "no END line"
                                             : "not base64 in lines of 64 characters (RFC 7468)";
            goto refuse;
        }
        memcpy(body + o, pem + i, line);
        o += line;
        i += line;
        prev = line;
    }
    i += line;
    /* after the END line: nothing, or one line end like the others */
    if (i < len && !(at_eol(pem, len, i, eol) && i + strlen(eol) == len)) {
        if (memmem(pem + i, len - i, "-----BEGIN ", 11))
            w = "a second PEM block: a key file holds one key";
        else if (only_line_ends(pem + i, len - i))
            w = "more than one line end after the END line";
        else
            w = "text after the block";
        goto refuse;
    }
    /* canonical base64 only (no URL-safe alphabet, no stray padding bits): decoded and
     * encoded again it is the same text */
    if (o == 0 || bx_b64_decode(body, o, der, dlen, NULL) != 0 ||
        !(again = bx_b64_encode(*der, *dlen)) || strlen(again) != o ||
        memcmp(again, body, o) != 0) {
        w = "not canonical base64";
        goto refuse;
    }
    rc = 0;
    goto out;
refuse:
    snprintf(why, nwhy, "%s", w);
    if (*der)
        OPENSSL_cleanse(*der, *dlen);
    free(*der);
    *der = NULL;
out:
    /* a private key's text passes here too */
    if (again)
        OPENSSL_cleanse(again, strlen(again));
    if (body)
        OPENSSL_cleanse(body, o);
    free(again);
    free(body);
    return rc;
}

/* The DER of the one PUBLIC KEY block that is all of pem (pem_block_der); a private key
 * anywhere in it is named as one. */
static int pem_public_der(const char *pem, size_t len, unsigned char **der, size_t *dlen, char *why,
                          size_t nwhy)
{
    char label[48];

    *der = NULL;
    if (holds_private(pem, len, label, sizeof label)) {
        snprintf(why, nwhy,
                 "holds a private key (%s), not a public key: give the public key (the .pub "
                 "file keygen wrote)",
                 label);
        return BX_ECONFIG;
    }
    return pem_block_der(pem, len, "PUBLIC KEY", der, dlen, why, nwhy);
}

/* ---- Ed25519 points that verify too much ----------------------------------------------------
 * OpenSSL 3.0 refuses S >= L and a non-canonical R, but takes a public key A of small order:
 * with the identity as A, one fixed signature verifies every payload. The encodings of the
 * eight points of small order, sign bit cleared, are the y values below (libsodium's
 * blocklist); the non-canonical forms (y >= p = 2^255 - 19, e.g. p and p + 1 for 0 and 1)
 * are refused as such. Mixed-order points (a large component plus a small one) cannot be
 * found from the encoding and are out of scope (docs/security.md). */
static const unsigned char ed25519_small_order_y[][32] = {
    /* 0: (+-sqrt(-1), 0), order 4 */
    {0},
    /* 1: the identity, order 1 */
    {0x01},
    /* the two y of the points of order 8 */
    {0x26, 0xe8, 0x95, 0x8f, 0xc2, 0xb2, 0x27, 0xb0, 0x45, 0xc3, 0xf4, 0x89, 0xf2, 0xef, 0x98, 0xf0,
     0xd5, 0xdf, 0xac, 0x05, 0xd3, 0xc6, 0x33, 0x39, 0xb1, 0x38, 0x02, 0x88, 0x6d, 0x53, 0xfc, 0x05},
    {0xc7, 0x17, 0x6a, 0x70, 0x3d, 0x4d, 0xd8, 0x4f, 0xba, 0x3c, 0x0b, 0x76, 0x0d, 0x10, 0x67, 0x0f,
     0x2a, 0x20, 0x53, 0xfa, 0x2c, 0x39, 0xcc, 0xc6, 0x4e, 0xc7, 0xfd, 0x77, 0x92, 0xac, 0x03, 0x7a},
    /* p - 1 = -1: (0, -1), order 2 */
    {0xec, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
};

/* p = 2^255 - 19, little-endian */
static const unsigned char ed25519_p[32] = {
    0xed, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};

const char *bx_ed25519_point_refused(const unsigned char enc[32])
{
    unsigned char y[32];
    int i;

    memcpy(y, enc, sizeof y);
    y[31] &= 0x7f;
    for (i = 31; i >= 0 && y[i] == ed25519_p[i]; i--)
        ;
    if (i < 0 || y[i] > ed25519_p[i])
        return "not a canonical encoding (y >= p)";
    for (size_t k = 0; k < sizeof ed25519_small_order_y / sizeof ed25519_small_order_y[0]; k++)
        if (memcmp(y, ed25519_small_order_y[k], sizeof y) == 0)
            return "a point of small order";
    return NULL;
}

static int public_key_usable(EVP_PKEY *k, bx_error *err)
{
    unsigned char raw[32];
    size_t n = sizeof raw;
    const char *why;

    if (bx_key_alg(k) != BX_ALG_ED25519)
        return 0;
    if (EVP_PKEY_get_raw_public_key(k, raw, &n) != 1 || n != sizeof raw)
        return bx_error_ssl(err, BX_ECONFIG, NULL, "cannot read the Ed25519 public key");
    if ((why = bx_ed25519_point_refused(raw)) != NULL)
        return bx_error_set(err, BX_ECONFIG, NULL,
                            "refused Ed25519 public key: %s (it would verify signatures it never "
                            "made)",
                            why);
    return 0;
}

int bx_key_parse_public(const char *pem, size_t len, EVP_PKEY **out, bx_error *err)
{
    char why[192], hex[65];
    size_t n = 0, klen = 0;
    const unsigned char *raw = NULL;
    unsigned char *der = NULL;
    const char *w;
    bx_alg alg = 0;
    EVP_PKEY *k = NULL;
    int rc = pem_public_der(pem, len, &der, &n, why, sizeof why);

    if (rc) {
        rc = bx_error_set(err, rc, NULL, "%s", why);
        goto out;
    }
    if ((w = spki_read(der, n, &alg, &raw, &klen)) != NULL) {
        rc = bx_error_set(err, BX_ECONFIG, NULL, "not an Ed25519 or ECDSA P-256 public key: %s", w);
        goto out;
    }
    if (!(k = key_from_bytes(alg, raw, klen))) {
        rc = bx_error_set(err, BX_ECONFIG, NULL,
                          "not an Ed25519 or ECDSA P-256 public key: a P-256 point that is not on "
                          "the curve");
        goto out;
    }
    if ((rc = public_key_usable(k, err)) != 0)
        goto out;
    /* the keyid is the SHA-256 of the DER with the point uncompressed, what a signer holding
     * the private key computes: the file's own DER except for a compressed point */
    if (klen == 33) {
        if ((rc = bx_key_id(k, hex, err)) != 0)
            goto out;
    } else {
        bx_sha256_hex(der, n, hex);
        keyid_keep(k, hex);
    }
    *out = k;
    k = NULL;
out:
    ERR_clear_error();
    EVP_PKEY_free(k);
    free(der);
    return rc;
}

int bx_key_load_public(const char *path, EVP_PKEY **out, bx_error *err)
{
    char *data = NULL;
    size_t len = 0;
    int rc = bx_read_file(path, BX_KEYFILE_MAX, 0, &data, &len, err);
    if (rc)
        return rc == BX_EINVAL ? (err->code = BX_ECONFIG) : rc;
    rc = bx_key_parse_public(data, len, out, err);
    if (rc)
        snprintf(err->where, sizeof err->where, "%s", path);
    free(data);
    return rc;
}

int bx_sign(EVP_PKEY *key, const void *msg, size_t len, unsigned char **sig, size_t *siglen,
            bx_error *err)
{
    int rc = 0;
    unsigned char *s = NULL;
    size_t n = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    const EVP_MD *md = bx_key_alg(key) == BX_ALG_ED25519 ? NULL : EVP_sha256();
    if (!ctx)
        return bx_error_ssl(err, BX_ENOMEM, NULL, "out of memory");
    if (EVP_DigestSignInit(ctx, NULL, md, NULL, key) != 1 ||
        EVP_DigestSign(ctx, NULL, &n, msg, len) != 1) {
        rc = bx_error_ssl(err, BX_EENV, NULL, "cannot sign");
        goto out;
    }
    s = malloc(n);
    if (!s || EVP_DigestSign(ctx, s, &n, msg, len) != 1) {
        rc = bx_error_ssl(err, BX_EENV, NULL, "cannot sign");
        goto out;
    }
    *sig = s;
    *siglen = n;
    s = NULL;
out:
    free(s);
    EVP_MD_CTX_free(ctx);
    return rc;
}

/* Raw r||s (32 bytes each) to DER, for the p1363 encoding. */
static int p1363_to_der(const unsigned char *sig, size_t siglen, unsigned char **der, size_t *derlen)
{
    int ok = 0, n;
    ECDSA_SIG *es = NULL;
    BIGNUM *r = NULL, *s = NULL;
    if (siglen != 64)
        return 0;
    es = ECDSA_SIG_new();
    r = BN_bin2bn(sig, 32, NULL);
    s = BN_bin2bn(sig + 32, 32, NULL);
    if (!es || !r || !s || !ECDSA_SIG_set0(es, r, s))
        goto out;
    r = s = NULL;
    *der = NULL;
    n = i2d_ECDSA_SIG(es, der);
    if (n <= 0)
        goto out;
    *derlen = (size_t)n;
    ok = 1;
out:
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(es);
    return ok;
}

/* Strict DER: the signature parses and re-encodes to exactly the same bytes. */
static int der_is_strict(const unsigned char *sig, size_t siglen)
{
    const unsigned char *p = sig;
    unsigned char *again = NULL;
    int ok = 0, n;
    ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)siglen);
    if (!es || (size_t)(p - sig) != siglen)
        goto out;
    n = i2d_ECDSA_SIG(es, &again);
    ok = n > 0 && (size_t)n == siglen && CRYPTO_memcmp(again, sig, siglen) == 0;
out:
    OPENSSL_free(again);
    ECDSA_SIG_free(es);
    return ok;
}

int bx_verify_sig(EVP_PKEY *key, bx_sigenc enc, const void *msg, size_t len,
                  const unsigned char *sig, size_t siglen, bx_error *err)
{
    int rc = BX_ESIG;
    unsigned char *der = NULL;
    size_t derlen = 0;
    EVP_MD_CTX *ctx = NULL;
    bx_alg alg = bx_key_alg(key);

    if (alg == BX_ALG_ECDSA_P256) {
        if (enc == BX_SIGENC_P1363) {
            if (!p1363_to_der(sig, siglen, &der, &derlen)) {
                rc = bx_error_set(err, BX_ESIG, NULL, "not a 64-byte r||s signature");
                goto out;
            }
            sig = der;
            siglen = derlen;
        } else if (!der_is_strict(sig, siglen)) {
            rc = bx_error_set(err, BX_ESIG, NULL, "not a strict DER ECDSA signature");
            goto out;
        }
    } else if (alg == BX_ALG_ED25519) {
        const char *why;
        if (siglen != 64) {
            rc = bx_error_set(err, BX_ESIG, NULL, "an Ed25519 signature is 64 bytes");
            goto out;
        }
        if ((why = bx_ed25519_point_refused(sig)) != NULL) {
            rc = bx_error_set(err, BX_ESIG, NULL, "an Ed25519 signature whose R is %s", why);
            goto out;
        }
    } else {
        rc = bx_error_set(err, BX_EUNSUPPORTED, NULL, "unsupported key type");
        goto out;
    }
    ctx = EVP_MD_CTX_new();
    if (!ctx) {
        rc = bx_error_ssl(err, BX_ENOMEM, NULL, "out of memory");
        goto out;
    }
    if (EVP_DigestVerifyInit(ctx, NULL, alg == BX_ALG_ED25519 ? NULL : EVP_sha256(), NULL, key) != 1) {
        rc = bx_error_ssl(err, BX_EENV, NULL, "cannot initialise verification");
        goto out;
    }
    if (EVP_DigestVerify(ctx, sig, siglen, msg, len) == 1)
        rc = 0;
    else
        rc = bx_error_set(err, BX_ESIG, NULL, "signature does not verify");
out:
    ERR_clear_error();
    EVP_MD_CTX_free(ctx);
    OPENSSL_free(der);
    return rc;
}
