// SPDX-License-Identifier: Apache-2.0
// The peer verifier for bench/run.sh: @sigstore/verify checking the signature of every
// envelope of a JSON Lines file, offline, against one raw public key -- the same wrapping
// as tests/interop/sigstore_verify.js (a minimal v0.3 bundle with a publicKey hint and
// zero tlog/ctlog/timestamp thresholds). Signature only: no statement or policy check.
//
// usage: node sigstore_bench.js ENVELOPES.jsonl PUBKEY.pem
// prints {"n":N,"verified":N,"seconds":S,"primitive":P}: S is timed inside the process
// around the loop (JSON.parse of the line, bundleFromJSON, toSignedEntity, Verifier.verify),
// excluding node's start-up, loading the modules, reading the file and building the
// verifier; P is N bare crypto.verify calls over the first envelope's PAE, for scale.
'use strict';
const fs = require('fs');
const crypto = require('crypto');
const { verifierFor, entityFor } = require('../tests/interop/sigstore_wrap.js');

const [file, pubFile] = process.argv.slice(2);
const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0);
const publicKey = crypto.createPublicKey(fs.readFileSync(pubFile));
const verifier = verifierFor(publicKey);

let verified = 0;
const t0 = process.hrtime.bigint();
for (const line of lines) {
  const env = JSON.parse(line);
  for (const sig of env.signatures) {
    try {
      verifier.verify(entityFor(env, sig));
      verified++;
      break;
    } catch (e) {
      // not this signature
    }
  }
}
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;

// The primitive alone, for scale: node's crypto.verify of the first envelope's signature
// over its DSSE PAE (the same bytes, the same libcrypto), as many times as there are lines.
const first = JSON.parse(lines[0]);
const body = Buffer.from(first.payload, 'base64');
const pae = Buffer.concat([Buffer.from(`DSSEv1 ${Buffer.byteLength(first.payloadType)} ` +
                                       `${first.payloadType} ${body.length} `), body]);
const sig = Buffer.from(first.signatures[0].sig, 'base64');
let ok = 0;
const t1 = process.hrtime.bigint();
for (let i = 0; i < lines.length; i++)
  ok += crypto.verify(null, pae, publicKey, sig) ? 1 : 0;
const primitive = Number(process.hrtime.bigint() - t1) / 1e9;
console.log(JSON.stringify({ n: lines.length, verified, seconds,
                             primitive: ok === lines.length ? primitive : null }));
process.exit(verified === lines.length ? 0 : 1);
