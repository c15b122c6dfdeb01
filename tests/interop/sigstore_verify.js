// SPDX-License-Identifier: Apache-2.0
// Verify a boxcert envelope with @sigstore/verify, offline, against a raw public key:
// each signature is wrapped as a minimal Sigstore bundle (v0.3) whose verification
// material is a publicKey hint, with zero tlog/ctlog/timestamp thresholds.
// usage: node sigstore_verify.js ENVELOPE PUBKEY.pem   (exit 0: some signature verifies)
'use strict';
const fs = require('fs');
const crypto = require('crypto');
const { bundleFromJSON } = require('@sigstore/bundle');
const { Verifier, toSignedEntity, toTrustMaterial } = require('@sigstore/verify');

const [envFile, pubFile] = process.argv.slice(2);
const env = JSON.parse(fs.readFileSync(envFile, 'utf8'));
const publicKey = crypto.createPublicKey(fs.readFileSync(pubFile));
const trust = toTrustMaterial(
  { mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
    tlogs: [], certificateAuthorities: [], ctlogs: [], timestampAuthorities: [] },
  () => ({ publicKey, validFor: () => true }));
const verifier = new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0, tsaThreshold: 0 });

let errors = [];
for (const sig of env.signatures) {
  const bundle = bundleFromJSON({
    mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
    verificationMaterial: {
      publicKey: { hint: sig.keyid || 'boxcert' },
      tlogEntries: [],
      timestampVerificationData: { rfc3161Timestamps: [] },
    },
    dsseEnvelope: { payload: env.payload, payloadType: env.payloadType,
                    signatures: [{ sig: sig.sig, keyid: sig.keyid || '' }] },
  });
  try {
    verifier.verify(toSignedEntity(bundle));
    console.log('verified by @sigstore/verify');
    process.exit(0);
  } catch (e) {
    errors.push(`${e.code || e.name}: ${e.message}`);
  }
}
console.log('rejected by @sigstore/verify: ' + errors.join('; '));
process.exit(1);
