/*
 * sshsig.c - SSH signatures over an allowed-signers file (sshsig.h).
 *
 * The formats are OpenSSH's: PROTOCOL.sshsig for the signature (a blob
 * of SSH wire strings, armored in base64) and ssh-keygen(1)'s ALLOWED
 * SIGNERS for the file.  The cryptography is nettle's (hogweed for the
 * public-key parts), so no ssh-keygen runs: a mount checks each new tip
 * of a followed branch in-process.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nettle/base64.h>
#include <nettle/ecc-curve.h>
#include <nettle/ecdsa.h>
#include <nettle/eddsa.h>
#include <nettle/nettle-meta.h>
#include <nettle/rsa.h>
#include <nettle/sha2.h>

#include "grow.h"
#include "sshsig.h"

#define MAGIC "SSHSIG"
#define MAGIC_LEN 6
#define ARMOR_BEGIN "-----BEGIN SSH SIGNATURE-----"
#define ARMOR_END "-----END SSH SIGNATURE-----"
#define RSA_MIN_BITS 1024     /* OpenSSH's SSH_RSA_MINIMUM_MODULUS_SIZE */
#define NO_TIME_LIMIT 0

/* ---- SSH wire strings ---------------------------------------------------- */

struct wire {
	const uint8_t *p;
	size_t n;
};

static bool get_u32(struct wire *w, uint32_t *v)
{
	if (w->n < 4)
		return false;
	*v = (uint32_t)w->p[0] << 24 | (uint32_t)w->p[1] << 16 |
	     (uint32_t)w->p[2] << 8 | w->p[3];
	w->p += 4;
	w->n -= 4;
	return true;
}

static bool get_string(struct wire *w, struct wire *out)
{
	uint32_t len;

	if (!get_u32(w, &len) || len > w->n)
		return false;
	*out = (struct wire){ w->p, len };
	w->p += len;
	w->n -= len;
	return true;
}

static bool wire_is(struct wire w, const char *s)
{
	return w.n == strlen(s) && memcmp(w.p, s, w.n) == 0;
}

/* An mpint's magnitude: leading zero bytes dropped, negatives refused. */
static bool get_mpint(struct wire *w, mpz_t out)
{
	struct wire v;

	if (!get_string(w, &v) || (v.n && (v.p[0] & 0x80)))
		return false;
	mpz_import(out, v.n, 1, 1, 0, 0, v.p);
	return true;
}

/* ---- base64 -------------------------------------------------------------- */

/* Decodes base64 text (nettle skips the whitespace of an armored block)
 * into a malloc'd buffer; false when it is not base64 or out of memory. */
static bool unbase64(const char *text, size_t len, struct wire *out,
                     uint8_t **owned)
{
	struct base64_decode_ctx ctx;
	size_t n = BASE64_DECODE_LENGTH(len);
	uint8_t *buf = malloc(n ? n : 1);

	base64_decode_init(&ctx);
	if (!buf || !base64_decode_update(&ctx, &n, buf, len, text) ||
	    !base64_decode_final(&ctx)) {
		free(buf);
		return false;
	}
	*owned = buf;
	*out = (struct wire){ buf, n };
	return true;
}

/* ---- the allowed-signers file ------------------------------------------- */

struct signer {
	char *principals;       /* the pattern-list as written */
	char *namespaces;       /* namespaces="..." or NULL: any */
	int64_t valid_after;    /* seconds, or NO_TIME_LIMIT */
	int64_t valid_before;
	uint8_t *key;           /* the public key blob */
	size_t key_len;
	bool cert_authority;    /* read, never matched: no certificates */
};

struct sfs_signers {
	struct signer *v;
	size_t n;
};

static const char *const key_types[] = {
	"ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256",
	"ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
	"sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com",
	"ssh-dss",
};

static bool is_key_type(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(key_types) / sizeof(*key_types); i++)
		if (strlen(key_types[i]) == n && memcmp(s, key_types[i], n) == 0)
			return true;
	return false;
}

/* The next space-separated field of a line; spaces inside double quotes
 * belong to it (options). */
static bool next_field(const char **cur, const char *end, const char **f,
                       size_t *n)
{
	const char *p = *cur;
	bool quoted = false;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end)
		return false;
	*f = p;
	for (; p < end && (quoted || (*p != ' ' && *p != '\t')); p++)
		if (*p == '"')
			quoted = !quoted;
	*n = (size_t)(p - *f);
	*cur = p;
	return true;
}

/* YYYYMMDD[Z] or YYYYMMDDHHMM[SS][Z]: local time unless Z, as ssh-keygen
 * reads them.  Returns false for anything else. */
static bool parse_time(const char *s, size_t n, int64_t *out)
{
	struct tm tm = { 0 };
	bool utc = n && s[n - 1] == 'Z';
	size_t digits = n - utc;
	char buf[16];

	if (digits != 8 && digits != 12 && digits != 14)
		return false;
	for (size_t i = 0; i < digits; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	memcpy(buf, s, digits);
	buf[digits] = '\0';
	int y, mo, d, h = 0, mi = 0, sec = 0;
	if (sscanf(buf, "%4d%2d%2d%2d%2d%2d", &y, &mo, &d, &h, &mi, &sec) < 3)
		return false;
	tm = (struct tm){ .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
	                  .tm_hour = h, .tm_min = mi, .tm_sec = sec,
	                  .tm_isdst = -1 };
	time_t t = utc ? timegm(&tm) : mktime(&tm);
	if (t == (time_t)-1)
		return false;
	*out = t;
	return true;
}

static bool option_is(const char *o, size_t n, const char *name, size_t *vlen)
{
	size_t k = strlen(name);

	if (n < k || strncasecmp(o, name, k) != 0)
		return false;
	*vlen = n - k;
	return true;
}

/* One comma-separated option of a line; false when it is none ssh-keygen
 * knows. */
static bool parse_option(struct signer *sg, const char *o, size_t n)
{
	size_t v;

	if (n == strlen("cert-authority") &&
	    strncasecmp(o, "cert-authority", n) == 0) {
		sg->cert_authority = true;
		return true;
	}
	if (option_is(o, n, "namespaces=\"", &v) && v && o[n - 1] == '"') {
		sg->namespaces = strndup(o + n - v, v - 1);
		return sg->namespaces != NULL;
	}
	if (option_is(o, n, "valid-after=", &v))
		return parse_time(o + n - v, v, &sg->valid_after);
	if (option_is(o, n, "valid-before=", &v))
		return parse_time(o + n - v, v, &sg->valid_before);
	if (option_is(o, n, "valid-after=\"", &v) && v > 1 && o[n - 1] == '"')
		return parse_time(o + n - v, v - 1, &sg->valid_after);
	if (option_is(o, n, "valid-before=\"", &v) && v > 1 && o[n - 1] == '"')
		return parse_time(o + n - v, v - 1, &sg->valid_before);
	return false;
}

static bool parse_options(struct signer *sg, const char *s, size_t n)
{
	size_t start = 0;
	bool quoted = false;

	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] == '"')
			quoted = !quoted;
		if (i < n && (quoted || s[i] != ','))
			continue;
		if (!parse_option(sg, s + start, i - start))
			return false;
		start = i + 1;
	}
	return true;
}

static void signer_free(struct signer *sg)
{
	free(sg->principals);
	free(sg->namespaces);
	free(sg->key);
}

static int fail(char *why, size_t cap, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *why, size_t cap, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (why && cap)
		vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return rc;
}

/* One line that is not blank or a comment: principals [options] keytype
 * base64-key [comment]. */
static int parse_line(const char *p, const char *end, struct signer *sg,
                      unsigned lineno, char *why, size_t cap)
{
	const char *f[3];
	size_t n[3];
	size_t k = 0;

	memset(sg, 0, sizeof(*sg));
	while (k < 3 && next_field(&p, end, &f[k], &n[k]))
		k++;
	if (k < 3)
		return fail(why, cap, -EINVAL, "line %u: expected principals, "
		            "a key type and a key", lineno);
	sg->principals = strndup(f[0], n[0]);
	if (!sg->principals)
		return -ENOMEM;
	size_t type = 1;
	if (!is_key_type(f[1], n[1])) {
		if (!parse_options(sg, f[1], n[1]))
			return fail(why, cap, -EINVAL, "line %u: unknown option "
			            "or bad time in \"%.*s\"", lineno, (int)n[1],
			            f[1]);
		type = 2;
		if (!is_key_type(f[2], n[2]))
			return fail(why, cap, -EINVAL, "line %u: unknown key "
			            "type \"%.*s\"", lineno, (int)n[2], f[2]);
	}
	const char *key;
	size_t key_n;
	if (type == 1) {
		key = f[2];
		key_n = n[2];
	} else if (!next_field(&p, end, &key, &key_n)) {
		return fail(why, cap, -EINVAL, "line %u: no key after its type",
		            lineno);
	}
	struct wire blob, name;
	if (!unbase64(key, key_n, &blob, &sg->key))
		return fail(why, cap, -EINVAL, "line %u: the key is not base64",
		            lineno);
	sg->key_len = blob.n;
	if (!get_string(&blob, &name) ||
	    name.n != n[type] || memcmp(name.p, f[type], name.n) != 0)
		return fail(why, cap, -EINVAL, "line %u: the key is not a "
		            "%.*s key", lineno, (int)n[type], f[type]);
	return 0;
}

int sfs_signers_parse(const char *text, size_t len, struct sfs_signers **out,
                      char *why, size_t cap)
{
	struct sfs_signers *s = calloc(1, sizeof(*s));
	const char *p = text, *end = text + len;
	unsigned lineno = 0;
	int rc = 0;

	if (!s)
		return -ENOMEM;
	while (rc == 0 && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end, *q = p;
		lineno++;
		while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r'))
			q++;
		const char *stop = eol;
		while (stop > q && (stop[-1] == '\r' || stop[-1] == ' '))
			stop--;
		if (q < stop && *q != '#') {
			struct signer *v = sfs_append(&s->v, &s->n, sizeof(*v));
			if (!v) {
				rc = -ENOMEM;
				break;
			}
			rc = parse_line(q, stop, v, lineno, why, cap);
		}
		p = nl ? nl + 1 : end;
	}
	if (rc < 0) {
		sfs_signers_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void sfs_signers_free(struct sfs_signers *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		signer_free(&s->v[i]);
	free(s->v);
	free(s);
}

size_t sfs_signers_count(const struct sfs_signers *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += !s->v[i].cert_authority;
	return n;
}

/* ---- matching a line ----------------------------------------------------- */

/* Whether ns matches a pattern of the comma-separated list (ssh_config's
 * PATTERNS: * and ?, a leading ! negates). */
static bool glob(const char *pat, size_t pn, const char *s)
{
	if (pn == 0)
		return *s == '\0';
	if (*pat == '*')
		return glob(pat + 1, pn - 1, s) || (*s && glob(pat, pn, s + 1));
	return *s && (*pat == '?' || *pat == *s) && glob(pat + 1, pn - 1, s + 1);
}

static bool in_pattern_list(const char *list, const char *s)
{
	bool match = false;

	while (*list) {
		size_t n = strcspn(list, ",");
		bool neg = *list == '!';
		if (glob(list + neg, n - neg, s)) {
			if (neg)
				return false;
			match = true;
		}
		list += n + (list[n] == ',');
	}
	return match;
}

static const struct signer *find_signer(const struct sfs_signers *s,
                                        struct wire key, const char *ns,
                                        int64_t when, char *why, size_t cap)
{
	const char *seen = "the signing key is not in the allowed signers";

	for (size_t i = 0; i < s->n; i++) {
		const struct signer *sg = &s->v[i];
		if (sg->cert_authority || sg->key_len != key.n ||
		    memcmp(sg->key, key.p, key.n) != 0)
			continue;
		if (sg->namespaces && !in_pattern_list(sg->namespaces, ns)) {
			seen = "the signing key is listed, but not for this "
			       "namespace";
			continue;
		}
		if ((sg->valid_after && when < sg->valid_after) ||
		    (sg->valid_before && when > sg->valid_before)) {
			seen = "the signing key is listed, but not as valid at "
			       "the time signed";
			continue;
		}
		return sg;
	}
	fail(why, cap, 0, "%s", seen);
	return NULL;
}

/* ---- the signature ------------------------------------------------------- */

struct sshsig {
	struct wire key, ns, reserved, hash, sig;
};

static int parse_blob(struct wire w, struct sshsig *out, char *why, size_t cap)
{
	uint32_t version = 0;

	if (w.n < MAGIC_LEN || memcmp(w.p, MAGIC, MAGIC_LEN) != 0)
		return fail(why, cap, -EINVAL, "not an SSH signature (no "
		            "SSHSIG preamble)");
	w.p += MAGIC_LEN;
	w.n -= MAGIC_LEN;
	if (!get_u32(&w, &version) || version != 1)
		return fail(why, cap, -EINVAL, "SSH signature version %u, "
		            "not 1", version);
	if (!get_string(&w, &out->key) || !get_string(&w, &out->ns) ||
	    !get_string(&w, &out->reserved) || !get_string(&w, &out->hash) ||
	    !get_string(&w, &out->sig) || w.n != 0)
		return fail(why, cap, -EINVAL, "a truncated SSH signature");
	return 0;
}

/* Strips the armor; the base64 between its lines decoded. */
static int unarmor(const char *armor, size_t alen, struct wire *out,
                   uint8_t **owned, char *why, size_t cap)
{
	const char *b = memmem(armor, alen, ARMOR_BEGIN, strlen(ARMOR_BEGIN));
	const char *e = b ? memmem(b, alen - (size_t)(b - armor), ARMOR_END,
	                           strlen(ARMOR_END)) : NULL;

	if (!b || !e)
		return fail(why, cap, -EINVAL, "not an armored SSH signature");
	b += strlen(ARMOR_BEGIN);
	if (!unbase64(b, (size_t)(e - b), out, owned))
		return fail(why, cap, -EINVAL, "the SSH signature is not "
		            "base64");
	return 0;
}

/* The bytes the key signed: PROTOCOL.sshsig's "signed data". */
static uint8_t *signed_data(const struct sshsig *s, const uint8_t *h,
                            size_t hn, size_t *len)
{
	const struct wire parts[] = { s->ns, s->reserved, s->hash, { h, hn } };
	size_t n = MAGIC_LEN;

	for (size_t i = 0; i < 4; i++)
		n += 4 + parts[i].n;
	uint8_t *buf = malloc(n), *p = buf;
	if (!buf)
		return NULL;
	memcpy(p, MAGIC, MAGIC_LEN);
	p += MAGIC_LEN;
	for (size_t i = 0; i < 4; i++) {
		uint32_t l = (uint32_t)parts[i].n;
		*p++ = (uint8_t)(l >> 24);
		*p++ = (uint8_t)(l >> 16);
		*p++ = (uint8_t)(l >> 8);
		*p++ = (uint8_t)l;
		memcpy(p, parts[i].p, parts[i].n);
		p += parts[i].n;
	}
	*len = n;
	return buf;
}

/* h(data), h being nettle's sha256 or sha512: h->digest_size bytes. */
static size_t hash_with(const struct nettle_hash *h, const void *data,
                        size_t dlen, uint8_t out[SHA512_DIGEST_SIZE])
{
	union {
		struct sha256_ctx sha256;
		struct sha512_ctx sha512;
	} c;

	h->init(&c);
	h->update(&c, dlen, data);
	h->digest(&c, h->digest_size, out);
	return h->digest_size;
}

/* H(message) with the signature's hash; 0 bytes when it names another. */
static size_t hash_message(struct wire alg, const void *data, size_t dlen,
                           uint8_t out[SHA512_DIGEST_SIZE])
{
	if (wire_is(alg, "sha512"))
		return hash_with(&nettle_sha512, data, dlen, out);
	if (wire_is(alg, "sha256"))
		return hash_with(&nettle_sha256, data, dlen, out);
	return 0;
}

static bool verify_ed25519(struct wire key, struct wire sig,
                           const uint8_t *msg, size_t len)
{
	struct wire pk, sv;

	return get_string(&key, &pk) && pk.n == ED25519_KEY_SIZE &&
	       key.n == 0 && get_string(&sig, &sv) &&
	       sv.n == ED25519_SIGNATURE_SIZE && sig.n == 0 &&
	       ed25519_sha512_verify(pk.p, len, msg, sv.p);
}

static bool verify_rsa(struct wire key, struct wire alg, struct wire sig,
                       const uint8_t *msg, size_t len)
{
	struct rsa_public_key pub;
	struct wire sv;
	mpz_t s;
	bool ok = false;

	rsa_public_key_init(&pub);
	mpz_init(s);
	if (get_mpint(&key, pub.e) && get_mpint(&key, pub.n) && key.n == 0 &&
	    rsa_public_key_prepare(&pub) &&
	    mpz_sizeinbase(pub.n, 2) >= RSA_MIN_BITS &&
	    get_string(&sig, &sv) && sig.n == 0) {
		mpz_import(s, sv.n, 1, 1, 0, 0, sv.p);
		uint8_t d[SHA512_DIGEST_SIZE];
		if (wire_is(alg, "rsa-sha2-512")) {
			hash_with(&nettle_sha512, msg, len, d);
			ok = rsa_sha512_verify_digest(&pub, d, s);
		} else if (wire_is(alg, "rsa-sha2-256")) {
			hash_with(&nettle_sha256, msg, len, d);
			ok = rsa_sha256_verify_digest(&pub, d, s);
		}
	}
	mpz_clear(s);
	rsa_public_key_clear(&pub);
	return ok;
}

static bool verify_p256(struct wire key, struct wire sig, const uint8_t *msg,
                        size_t len)
{
	const size_t coord = 32;
	struct wire curve, q, rs;
	struct ecc_point pub;
	struct dsa_signature ds;
	mpz_t x, y;
	bool ok = false;

	if (!get_string(&key, &curve) || !wire_is(curve, "nistp256") ||
	    !get_string(&key, &q) || key.n != 0 || q.n != 1 + 2 * coord ||
	    q.p[0] != 0x04 || !get_string(&sig, &rs) || sig.n != 0)
		return false;
	ecc_point_init(&pub, nettle_get_secp_256r1());
	dsa_signature_init(&ds);
	mpz_inits(x, y, NULL);
	mpz_import(x, coord, 1, 1, 0, 0, q.p + 1);
	mpz_import(y, coord, 1, 1, 0, 0, q.p + 1 + coord);
	if (ecc_point_set(&pub, x, y) && get_mpint(&rs, ds.r) &&
	    get_mpint(&rs, ds.s) && rs.n == 0) {
		uint8_t d[SHA512_DIGEST_SIZE];
		size_t dn = hash_with(&nettle_sha256, msg, len, d);
		ok = ecdsa_verify(&pub, dn, d, &ds);
	}
	mpz_clears(x, y, NULL);
	dsa_signature_clear(&ds);
	ecc_point_clear(&pub);
	return ok;
}

/* Whether sig (string algorithm, then its own fields) is key's over msg. */
static bool verify_by_key(struct wire key, struct wire sig, const uint8_t *msg,
                          size_t len)
{
	struct wire ktype, alg;

	if (!get_string(&key, &ktype) || !get_string(&sig, &alg))
		return false;
	if (wire_is(ktype, "ssh-ed25519") && wire_is(alg, "ssh-ed25519"))
		return verify_ed25519(key, sig, msg, len);
	if (wire_is(ktype, "ssh-rsa"))
		return verify_rsa(key, alg, sig, msg, len);
	if (wire_is(ktype, "ecdsa-sha2-nistp256") &&
	    wire_is(alg, "ecdsa-sha2-nistp256"))
		return verify_p256(key, sig, msg, len);
	return false;
}

/* Whether this file can verify a signature by key: false for the kinds
 * the allowed-signers file may name but nettle is not asked to check
 * (security keys, nistp384/521, DSA). */
static bool key_supported(struct wire key, struct wire *type)
{
	return get_string(&key, type) &&
	       (wire_is(*type, "ssh-ed25519") || wire_is(*type, "ssh-rsa") ||
	        wire_is(*type, "ecdsa-sha2-nistp256"));
}

static int check(const struct sfs_signers *s, const struct sshsig *sig,
                 const void *data, size_t dlen, const char *ns, int64_t when,
                 char *principal, char *why, size_t cap)
{
	uint8_t h[SHA512_DIGEST_SIZE];
	size_t hn = hash_message(sig->hash, data, dlen, h);

	if (!wire_is(sig->ns, ns))
		return fail(why, cap, -EPERM, "the signature is for namespace "
		            "\"%.*s\", not \"%s\"", (int)sig->ns.n,
		            (const char *)sig->ns.p, ns);
	if (!hn)
		return fail(why, cap, -EINVAL, "the signature's hash \"%.*s\" "
		            "is neither sha256 nor sha512", (int)sig->hash.n,
		            (const char *)sig->hash.p);
	struct wire type = { (const uint8_t *)"", 0 };
	if (!key_supported(sig->key, &type))
		return fail(why, cap, -EINVAL, "signatures by %.*s keys are "
		            "not checked (ssh-ed25519, ssh-rsa and "
		            "ecdsa-sha2-nistp256 are)", (int)type.n,
		            (const char *)type.p);
	const struct signer *sg = find_signer(s, sig->key, ns, when, why, cap);
	if (!sg)
		return -EPERM;
	size_t len;
	uint8_t *msg = signed_data(sig, h, hn, &len);
	if (!msg)
		return -ENOMEM;
	bool ok = verify_by_key(sig->key, sig->sig, msg, len);
	free(msg);
	if (!ok)
		return fail(why, cap, -EPERM, "the signature does not verify "
		            "with the key of %s", sg->principals);
	snprintf(principal, SFS_PRINCIPAL_MAX, "%.*s", (int)strcspn(sg->principals, ","),
	         sg->principals);
	return 0;
}

int sfs_sshsig_verify(const struct sfs_signers *s, const char *armor,
                      size_t alen, const void *data, size_t dlen,
                      const char *ns, int64_t when, char *principal,
                      char *why, size_t cap)
{
	struct wire blob;
	uint8_t *owned = NULL;
	struct sshsig sig;

	int rc = unarmor(armor, alen, &blob, &owned, why, cap);
	if (rc == 0)
		rc = parse_blob(blob, &sig, why, cap);
	if (rc == 0)
		rc = check(s, &sig, data, dlen, ns, when, principal, why, cap);
	free(owned);
	return rc;
}
