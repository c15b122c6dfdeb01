// SPDX-License-Identifier: Apache-2.0
// How boxcert's envelopes are given to @sigstore/verify, offline, against a raw public key
// (tests/interop/sigstore_verify.js and bench/sigstore_bench.js): each signature wrapped as a
// minimal Sigstore bundle (v0.3) whose verification material is a publicKey hint, a verifier
// with zero tlog/ctlog/timestamp thresholds.
'use strict';
const { bundleFromJSON } = require('@sigstore/bundle');
const { Verifier, toSignedEntity, toTrustMaterial } = require('@sigstore/verify');

function verifierFor(publicKey) {
  const trust = toTrustMaterial(
    { mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
      tlogs: [], certificateAuthorities: [], ctlogs: [], timestampAuthorities: [] },
    () => ({ publicKey, validFor: () => true }));
  return new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0, tsaThreshold: 0 });
}

// The signed entity of one signature of a DSSE envelope.
function entityFor(env, sig) {
  return toSignedEntity(bundleFromJSON({
    mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
    verificationMaterial: {
      publicKey: { hint: sig.keyid || 'boxcert' },
      tlogEntries: [],
      timestampVerificationData: { rfc3161Timestamps: [] },
    },
    dsseEnvelope: { payload: env.payload, payloadType: env.payloadType,
                    signatures: [{ sig: sig.sig, keyid: sig.keyid || '' }] },
  }));
}

module.exports = { verifierFor, entityFor };
