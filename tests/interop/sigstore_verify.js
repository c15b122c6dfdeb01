// SPDX-License-Identifier: Apache-2.0
// Verify a boxcert envelope with @sigstore/verify, offline, against a raw public key:
// each signature is wrapped as a minimal Sigstore bundle (v0.3) whose verification
// material is a publicKey hint, with zero tlog/ctlog/timestamp thresholds.
// usage: node sigstore_verify.js ENVELOPE PUBKEY.pem   (exit 0: some signature verifies)
'use strict';
const fs = require('fs');
const crypto = require('crypto');
const { verifierFor, entityFor } = require('./sigstore_wrap.js');

const [envFile, pubFile] = process.argv.slice(2);
const env = JSON.parse(fs.readFileSync(envFile, 'utf8'));
const verifier = verifierFor(crypto.createPublicKey(fs.readFileSync(pubFile)));

let errors = [];
for (const sig of env.signatures) {
  try {
    verifier.verify(entityFor(env, sig));
    console.log('verified by @sigstore/verify');
    process.exit(0);
  } catch (e) {
    errors.push(`${e.code || e.name}: ${e.message}`);
  }
}
console.log('rejected by @sigstore/verify: ' + errors.join('; '));
process.exit(1);
