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

int bx_key_load_private(const char *path, const char *passphrase, EVP_PKEY **out, bx_error *err)
{
    int rc = 0, fd = -1;
    char *data = NULL;
    BIO *b = NULL;
    EVP_PKEY *k = NULL;
    char pass[1024] = "";
    struct stat st;
    ssize_t n = 0;
    size_t len = 0;

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

/* ---- the common case of a public key file, without OpenSSL's decoder chain ----------------
 * OpenSSL 3's PEM_read_bio_PUBKEY builds a decoder for every format and key type it knows
 * (about two thirds of the work of verifying one certificate, start-up included). A file
 * that is exactly one PUBLIC KEY block holding the DER of an Ed25519 or a named-curve
 * P-256 key with an uncompressed point, which is what keygen and openssl write, is read
 * here: the same key (EVP_PKEY_eq), and its keyid, the SHA-256 of that DER (what
 * i2d_PUBKEY gives back for it), kept with it. Anything else goes to OpenSSL's reader. */

static const unsigned char spki_ed25519[12] = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03,
                                               0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};
static const unsigned char spki_p256[27] = {0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a,
                                            0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06,
                                            0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03,
                                            0x01, 0x07, 0x03, 0x42, 0x00, 0x04};

/* The DER inside a PEM that is one PUBLIC KEY block and nothing else (LF or CRLF line
 * ends, base64 lines of at most 76 characters); NULL otherwise. Caller frees. */
static unsigned char *pem_spki_der(const char *pem, size_t len, size_t *dlen)
{
    static const char begin[] = "-----BEGIN PUBLIC KEY-----", end[] = "-----END PUBLIC KEY-----";
    char body[256];
    size_t o = 0, i = sizeof begin - 1;
    unsigned char *der = NULL;

    if (len < i || memcmp(pem, begin, i) != 0)
        return NULL;
    for (;;) {
        size_t line;
        if (i < len && pem[i] == '\r')
            i++;
        if (i >= len || pem[i] != '\n')
            return NULL;
        i++;
        for (line = 0; i + line < len && pem[i + line] != '\n' && pem[i + line] != '\r'; line++)
            ;
        if (line == sizeof end - 1 && memcmp(pem + i, end, line) == 0) {
            i += line;
            break;
        }
        /* standard base64 only (bx_b64_decode also takes the URL-safe alphabet) */
        if (line == 0 || line > 76 || o + line > sizeof body || memchr(pem + i, '-', line) ||
            memchr(pem + i, '_', line))
            return NULL;
        memcpy(body + o, pem + i, line);
        o += line;
        i += line;
    }
    if (i < len && pem[i] == '\r')
        i++;
    if (i < len && pem[i] == '\n')
        i++;
    if (i != len || bx_b64_decode(body, o, &der, dlen, NULL) != 0)
        return NULL;
    return der;
}

static void keyid_keep(EVP_PKEY *key, const char hex[65]);

static EVP_PKEY *spki_fast(const char *pem, size_t len)
{
    size_t n = 0;
    unsigned char *der = pem_spki_der(pem, len, &n);
    EVP_PKEY *k = NULL;
    char hex[65];

    if (!der)
        return NULL;
    if (n == sizeof spki_ed25519 + 32 && memcmp(der, spki_ed25519, sizeof spki_ed25519) == 0) {
        k = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, der + sizeof spki_ed25519, 32);
    } else if (n == sizeof spki_p256 + 64 && memcmp(der, spki_p256, sizeof spki_p256) == 0) {
        char group[] = "prime256v1";
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group, 0),
            OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, der + sizeof spki_p256 - 1,
                                              65),
            OSSL_PARAM_construct_end()};
        EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
        if (!c || EVP_PKEY_fromdata_init(c) != 1 ||
            EVP_PKEY_fromdata(c, &k, EVP_PKEY_PUBLIC_KEY, params) != 1) {
            EVP_PKEY_free(k);
            k = NULL;
        }
        EVP_PKEY_CTX_free(c);
    }
    if (k) {
        bx_sha256_hex(der, n, hex);
        keyid_keep(k, hex);
    }
    free(der);
    ERR_clear_error();
    return k;
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

/* The "-----BEGIN " lines of pem (at the start of a line). */
static size_t pem_blocks(const char *pem, size_t len)
{
    static const char tag[] = "-----BEGIN ";
    size_t n = 0;
    for (size_t i = 0; i + sizeof tag - 1 <= len; i++)
        if ((i == 0 || pem[i - 1] == '\n') && memcmp(pem + i, tag, sizeof tag - 1) == 0)
            n++;
    return n;
}

int bx_key_parse_public(const char *pem, size_t len, EVP_PKEY **out, bx_error *err)
{
    int rc = 0;
    EVP_PKEY *k = spki_fast(pem, len);
    BIO *b = NULL;

    if (k) {
        if ((rc = public_key_usable(k, err)) != 0) {
            EVP_PKEY_free(k);
            return rc;
        }
        *out = k;
        return 0;
    }
    /* one key a file: OpenSSL's reader would take the first block and ignore the rest */
    if (pem_blocks(pem, len) > 1)
        return bx_error_set(err, BX_ECONFIG, NULL,
                            "more than one PEM block: a public key file holds one key");
    if (!(b = BIO_new_mem_buf(pem, (int)len)))
        return bx_error_ssl(err, BX_ENOMEM, NULL, "out of memory");
    k = PEM_read_bio_PUBKEY(b, NULL, NULL, NULL);
    if (!k) {
        rc = bx_error_ssl(err, BX_ECONFIG, NULL, "not an SPKI PEM public key");
        goto out;
    }
    if (!bx_key_alg(k)) {
        rc = bx_error_set(err, BX_ECONFIG, NULL, "unsupported key type (want Ed25519 or ECDSA P-256)");
        goto out;
    }
    if ((rc = public_key_usable(k, err)) != 0)
        goto out;
    *out = k;
    k = NULL;
out:
    EVP_PKEY_free(k);
    BIO_free(b);
    ERR_clear_error();
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
