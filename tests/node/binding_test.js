#!/usr/bin/env node
// Drives the npm package `foundationdb` (node-foundationdb 2.x, pinned in package-lock.json) against
// the libfdb_c.so it finds on LD_LIBRARY_PATH, and checks every result exactly: get/set/clear,
// range reads (selectors, limits, reverse, every streaming mode, several batches), atomic ops,
// versionstamps, conflicts and the retry loop, snapshot reads, read versions, watches, options,
// errors, the tuple layer and the directory layer.
//
// Run it through ./run, which installs the package, picks the native module (the shipped prebuilt
// one or one rebuilt against our header) and writes the cluster file. By hand:
//   FDB_CLUSTER_FILE=/tmp/c  (a file holding `memory:node-test`)  LD_LIBRARY_PATH=<libdir> \
//     node tests/node/binding_test.js
// Environment:
//   FDB_CLUSTER_FILE                 required; must hold a memory: address (the test clears the key space)
//   FDB_NODE_TEST_MODE               label of the summary line (prebuilt / source), default "node"
//   FDB_NODE_TEST_EXPECT_LIBFDB_C    if set, the libfdb_c.so that must be loaded (checked in /proc/self/maps)
//   FDB_NODE_TEST_EXPECT_MODULE      if set, the native module (.node) that must be loaded
//   FDB_NODE_TEST_API_VERSION        API version to select, default 720 (the binding's maximum)
//   FDB_NODE_TEST_CHECK_TIMEOUT_MS   per-check limit, default 30000; a check that hangs ends the run
//   FDB_NODE_TEST_ONLY               run only the checks whose name contains this text
// Output: one line per check, then `<mode>: N passed, M failed`; exit status 1 on any failure.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const MODE = process.env.FDB_NODE_TEST_MODE || 'node';
const API_VERSION = Number(process.env.FDB_NODE_TEST_API_VERSION || 720);
const CHECK_TIMEOUT_MS = Number(process.env.FDB_NODE_TEST_CHECK_TIMEOUT_MS || 30000);

function die(message) {
  console.error(`binding_test: ${message}`);
  console.log(`${MODE}: 0 passed, 1 failed`);
  process.exit(1);
}

// ---- Safety: only ever run on an in-memory database. -------------------------------------------
const clusterFile = process.env.FDB_CLUSTER_FILE;
if (!clusterFile) die('FDB_CLUSTER_FILE is not set (it must name a file holding e.g. `memory:node-test`)');
let address;
try {
  address = fs.readFileSync(clusterFile, 'utf8').trim();
} catch (e) {
  die(`cannot read the cluster file ${clusterFile}: ${e.message}`);
}
if (!address.startsWith('memory:')) {
  die(`refusing to run: ${clusterFile} holds "${address}", not a memory: address (this test clears the whole key space)`);
}

// ---- Load the binding (this dlopens the native module and, through it, libfdb_c.so). -------------
let fdb;
try {
  fdb = require('foundationdb');
} catch (e) {
  die(`cannot load the foundationdb package or its native module: ${e.message}\n` +
      '  (is LD_LIBRARY_PATH pointing at the directory holding our libfdb_c.so? did `npm ci` run?)');
}
const native = require('foundationdb/dist/lib/native').default;
const ks = fdb.keySelector;
const { MutationType, StreamingMode } = fdb;

// The shared objects mapped into this process whose path matches `test`.
function mappedObjects(test) {
  const found = new Set();
  for (const line of fs.readFileSync('/proc/self/maps', 'utf8').split('\n')) {
    const i = line.indexOf('/');
    if (i >= 0 && test(line.slice(i))) found.add(line.slice(i).replace(/ \(deleted\)$/, ''));
  }
  return [...found];
}
const realpath = (p) => { try { return fs.realpathSync(p); } catch { return p; } };

// ---- Small helpers. ------------------------------------------------------------------------------
const buf = (s) => Buffer.from(s, 'latin1');
const str = (b) => (b === undefined || b === null ? b : Buffer.from(b).toString('latin1'));
const pairs = (rows) => rows.map(([k, v]) => [str(k), str(v)]);
const le64 = (n) => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(n)); return b; };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const ERROR_NAMES = {
  1020: 'not_committed', 1025: 'transaction_cancelled', 1031: 'transaction_timed_out',
  1101: 'operation_cancelled', 2004: 'key_outside_legal_range', 2021: 'no_commit_version',
  2102: 'key_too_large', 2103: 'value_too_large',
};
const describe = (code) => `${code} (${ERROR_NAMES[code] || '?'})`;

// Awaits `promise`, which must reject with FDBError `code`; returns the error.
async function rejectsWith(promise, code, what) {
  let error;
  try {
    await promise;
  } catch (e) {
    error = e;
  }
  if (error === undefined) assert.fail(`${what}: expected FDB error ${describe(code)}, but it succeeded`);
  if (!(error instanceof fdb.FDBError)) {
    assert.fail(`${what}: expected FDB error ${describe(code)}, got ${error && error.stack || error}`);
  }
  assert.equal(error.code, code, `${what}: expected FDB error ${describe(code)}, got ${error.code} (${error.message})`);
  return error;
}

// Awaits `promise`, which must reject with a DirectoryError.
async function rejectsWithDirectoryError(promise, what) {
  let error;
  try {
    await promise;
  } catch (e) {
    error = e;
  }
  if (error === undefined) assert.fail(`${what}: expected a DirectoryError, but it succeeded`);
  if (!(error instanceof fdb.DirectoryError)) assert.fail(`${what}: expected a DirectoryError, got ${error.stack || error}`);
}

function within(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: not settled after ${ms} ms`)), ms); }),
  ]).finally(() => clearTimeout(timer));
}

async function collect(asyncIterable) {
  const out = [];
  for await (const item of asyncIterable) out.push(item);
  return out;
}

// ---- The checks. Each one works under its own key prefix, so they are independent. ---------------
const checks = [];
const check = (name, fn) => checks.push({ name, fn });
let db;
const space = (name) => db.at(buf(`${name}/`));

check('native module and libfdb_c.so are the expected ones', async () => {
  const libs = mappedObjects((p) => /\/libfdb_c[^/]*\.so/.test(p));
  const modules = mappedObjects((p) => p.endsWith('.node'));
  console.log(`    native module: ${modules.join(', ') || '(none?)'}`);
  console.log(`    libfdb_c:      ${libs.join(', ') || '(none?)'}`);
  assert.equal(fdb.modType, 'napi');
  assert.equal(libs.length, 1, `exactly one libfdb_c must be loaded, found: ${libs.join(', ')}`);
  if (process.env.FDB_NODE_TEST_EXPECT_LIBFDB_C) {
    assert.equal(realpath(libs[0]), realpath(process.env.FDB_NODE_TEST_EXPECT_LIBFDB_C), 'loaded the wrong libfdb_c');
  }
  if (process.env.FDB_NODE_TEST_EXPECT_MODULE) {
    const want = realpath(process.env.FDB_NODE_TEST_EXPECT_MODULE);
    assert.ok(modules.map(realpath).includes(want), `expected native module ${want}, loaded: ${modules.join(', ')}`);
  }
});

check('set / get / missing key / empty and binary values', async () => {
  const d = space('kv');
  await d.set('hello', 'world');
  assert.equal(str(await d.get('hello')), 'world');
  assert.equal(await d.get('missing'), undefined);
  await d.set('empty', '');
  const empty = await d.get('empty');
  assert.ok(Buffer.isBuffer(empty) && empty.length === 0, 'an empty value reads back as an empty buffer, not undefined');
  const binKey = Buffer.from([0x00, 0xff, 0x01, 0x00]);
  const binValue = Buffer.from([0xff, 0x00, 0xfe, 0x00, 0x7f]);
  await d.set(binKey, binValue);
  assert.deepEqual(await d.get(binKey), binValue);
  await d.set('hello', 'again');
  assert.equal(str(await d.get('hello')), 'again');
  const big = Buffer.alloc(100000, 'x');  // the largest legal value
  await d.set('big', big);
  assert.ok((await d.get('big')).equals(big), '100,000-byte value round trip');
  assert.equal(await d.doTn((tn) => tn.exists('hello')), true);
  assert.equal(await d.doTn((tn) => tn.exists('missing')), false);
});

check('read-your-writes inside one transaction', async () => {
  const d = space('ryw');
  await d.set('a', 'db');
  const seen = await d.doTn(async (tn) => {
    const before = str(await tn.get('a'));
    tn.set('a', 'mine');
    const afterSet = str(await tn.get('a'));
    tn.clear('a');
    const afterClear = await tn.get('a');
    tn.set('b', 'new');
    return [before, afterSet, afterClear, pairs(await tn.getRangeAll('a', 'z'))];
  });
  assert.deepEqual(seen, ['db', 'mine', undefined, [['b', 'new']]]);
  assert.deepEqual(pairs(await d.getRangeAllStartsWith('')), [['b', 'new']]);
});

check('clear / clearRange / clearRangeStartsWith', async () => {
  const d = space('clear');
  await d.doTn(async (tn) => { for (const k of ['a', 'b', 'c', 'd', 'e', 'p/1', 'p/2', 'q']) tn.set(k, `v${k}`); });
  await d.clear('a');
  assert.equal(await d.get('a'), undefined);
  await d.clear('never-there');  // clearing a missing key is not an error
  await d.clearRange('b', 'd');  // [b, d)
  await d.clearRangeStartsWith('p/');
  assert.deepEqual(pairs(await d.getRangeAllStartsWith('')), [['d', 'vd'], ['e', 've'], ['q', 'vq']]);
  const inside = await d.doTn(async (tn) => {
    tn.clearRange('d', 'f');
    tn.set('e', 'again');
    return pairs(await tn.getRangeAll('a', 'z'));
  });
  assert.deepEqual(inside, [['e', 'again'], ['q', 'vq']]);
  assert.deepEqual(pairs(await d.getRangeAllStartsWith('')), [['e', 'again'], ['q', 'vq']]);
});

check('getRange: forward, reverse, limit, key selectors, getKey, async iterator', async () => {
  const d = space('range');
  const keys = Array.from({ length: 20 }, (_, i) => String(i).padStart(2, '0'));
  const rows = (list) => list.map((k) => [k, `v${k}`]);
  await d.doTn(async (tn) => keys.forEach((k) => tn.set(k, `v${k}`)));

  assert.deepEqual(pairs(await d.getRangeAllStartsWith('')), rows(keys));
  assert.deepEqual(pairs(await d.getRangeAll('05', '10')), rows(keys.slice(5, 10)));
  assert.deepEqual(pairs(await d.getRangeAll('05', '10', { reverse: true })), rows(keys.slice(5, 10).reverse()));
  assert.deepEqual(pairs(await d.getRangeAll('00', '99', { limit: 3 })), rows(['00', '01', '02']));
  assert.deepEqual(pairs(await d.getRangeAll('00', '99', { limit: 3, reverse: true })), rows(['19', '18', '17']));
  assert.deepEqual(pairs(await d.getRangeAll('10', '05')), [], 'an inverted range is empty, not an error');

  // Key selectors: firstGreaterThan / lastLessThan / lastLessOrEqual / offsets.
  assert.deepEqual(pairs(await d.getRangeAll(ks.firstGreaterThan('05'), ks.firstGreaterThan('10'))),
    rows(['06', '07', '08', '09', '10']));
  assert.deepEqual(pairs(await d.getRangeAll(ks.lastLessThan('05'), '08')), rows(['04', '05', '06', '07']));
  assert.deepEqual(pairs(await d.getRangeAll(ks.add(ks.firstGreaterOrEqual('05'), 2), ks.lastLessOrEqual('09'))),
    rows(['07', '08']));
  assert.deepEqual(pairs(await d.getRangeAll(ks.firstGreaterOrEqual('055'), ks.firstGreaterOrEqual('075'))),
    rows(['06', '07']));

  // getKey (results outside this subspace come back as undefined).
  assert.equal(str(await d.getKey(ks.lastLessThan('05'))), '04');
  assert.equal(str(await d.getKey(ks.lastLessOrEqual('05'))), '05');
  assert.equal(str(await d.getKey(ks.firstGreaterOrEqual('055'))), '06');
  assert.equal(str(await d.getKey(ks.firstGreaterThan('05'))), '06');
  assert.equal(str(await d.getKey(ks.add(ks.lastLessOrEqual('10'), -3))), '07');
  assert.equal(str(await d.getKey(ks.add(ks.firstGreaterOrEqual('00'), 19))), '19');
  assert.equal(str(await d.getKey('07')), '07');
  assert.equal(await d.getKey(ks.firstGreaterThan('19')), undefined);
  assert.equal(await d.getKey(ks.lastLessThan('00')), undefined);

  // The async iterator (StreamingMode.Iterator, iteration 1, 2, ...).
  const iterated = await d.doTn(async (tn) => pairs(await collect(tn.getRange('00', '99'))));
  assert.deepEqual(iterated, rows(keys));
  const iteratedReverse = await d.doTn(async (tn) => pairs(await collect(tn.getRange('00', '99', { reverse: true, limit: 5 }))));
  assert.deepEqual(iteratedReverse, rows(['19', '18', '17', '16', '15']));
});

check('getRangeAll over several batches, in every streaming mode', async () => {
  const d = space('big');
  const N = 300;
  const key = (i) => String(i).padStart(4, '0');
  const value = (i) => Buffer.alloc(1000, key(i));  // 300 rows of ~1 KB: more than any mode's byte limit
  for (let s = 0; s < N; s += 100) {
    await d.doTn(async (tn) => { for (let i = s; i < s + 100; i++) tn.set(key(i), value(i)); });
  }
  const expectRows = (got, indexes, what) => {
    assert.equal(got.length, indexes.length, `${what}: row count`);
    got.forEach(([k, v], j) => {
      assert.equal(str(k), key(indexes[j]), `${what}: key of row ${j}`);
      assert.ok(v.equals(value(indexes[j])), `${what}: value of row ${j}`);
    });
  };
  const all = Array.from({ length: N }, (_, i) => i);

  expectRows(await d.getRangeAllStartsWith(''), all, 'getRangeAll (want_all)');
  expectRows(await d.getRangeAllStartsWith('', { limit: 250 }), all.slice(0, 250), 'limit 250');
  expectRows(await d.getRangeAllStartsWith('', { limit: 250, reverse: true }), all.slice(50).reverse(), 'reverse limit 250');
  expectRows(await d.getRangeAllStartsWith('', { streamingMode: StreamingMode.Exact, limit: 10 }), all.slice(0, 10), 'exact limit 10');

  for (const mode of ['WantAll', 'Iterator', 'Small', 'Medium', 'Large', 'Serial']) {
    const batches = await d.doTn(async (tn) => collect(tn.getRangeBatch('', undefined, { streamingMode: StreamingMode[mode] })));
    expectRows(batches.flat(), all, `getRangeBatch ${mode}`);
    assert.ok(batches.length >= 2, `${mode}: 300 KB must come back in more than one batch, got ${batches.length}`);
    // A batch may end exactly at the last row with `more` set, so only the final batch may be empty.
    assert.ok(batches.slice(0, -1).every((b) => b.length > 0), `${mode}: an empty batch before the end`);
  }
  const reverseBatches = await d.doTn(async (tn) => collect(tn.getRangeBatch('', undefined, { reverse: true })));
  assert.ok(reverseBatches.length >= 2, 'reverse iterator: more than one batch');
  expectRows(reverseBatches.flat(), all.slice().reverse(), 'reverse iterator');
});

check('atomic ops: add, max, min, bit and/or/xor, byte min/max, append, compare-and-clear', async () => {
  const d = space('atomic');
  await d.add('c', le64(5));  // on a missing key: the operand
  await d.add('c', le64(10));
  await d.add('c', le64(-3));
  assert.deepEqual(await d.get('c'), le64(12));
  await d.set('short', Buffer.from([0xff]));
  await d.add('short', Buffer.from([0x01, 0x00]));  // the value is extended to the operand's length
  assert.deepEqual(await d.get('short'), Buffer.from([0x00, 0x01]));

  await d.max('c', le64(7));
  assert.deepEqual(await d.get('c'), le64(12));
  await d.max('c', le64(20));
  assert.deepEqual(await d.get('c'), le64(20));
  await d.min('c', le64(3));
  assert.deepEqual(await d.get('c'), le64(3));
  await d.min('min-missing', le64(9));
  assert.deepEqual(await d.get('min-missing'), le64(9));
  await d.max('max-missing', le64(4));
  assert.deepEqual(await d.get('max-missing'), le64(4));

  await d.set('bits', Buffer.from([0x0c]));
  await d.bitAnd('bits', Buffer.from([0x0a]));
  assert.deepEqual(await d.get('bits'), Buffer.from([0x08]));
  await d.bitOr('bits', Buffer.from([0x03]));
  assert.deepEqual(await d.get('bits'), Buffer.from([0x0b]));
  await d.bitXor('bits', Buffer.from([0xff]));
  assert.deepEqual(await d.get('bits'), Buffer.from([0xf4]));
  await d.bitAnd('and-missing', Buffer.from([0x0f]));  // API >= 510: AND on a missing key sets the operand
  assert.deepEqual(await d.get('and-missing'), Buffer.from([0x0f]));

  await d.set('s', 'banana');
  await d.byteMax('s', 'cherry');
  assert.equal(str(await d.get('s')), 'cherry');
  await d.byteMin('s', 'apple');
  assert.equal(str(await d.get('s')), 'apple');
  await d.byteMin('s', 'b');
  assert.equal(str(await d.get('s')), 'apple');

  await d.set('app', 'ab');
  await d.atomicOp(MutationType.AppendIfFits, 'app', 'cd');
  assert.equal(str(await d.get('app')), 'abcd');
  await d.atomicOp(MutationType.AppendIfFits, 'app-missing', 'cd');
  assert.equal(str(await d.get('app-missing')), 'cd');

  await d.set('cac', 'x');
  await d.atomicOp(MutationType.CompareAndClear, 'cac', 'y');
  assert.equal(str(await d.get('cac')), 'x');
  await d.atomicOp(MutationType.CompareAndClear, 'cac', 'x');
  assert.equal(await d.get('cac'), undefined);

  // Read-your-writes sees atomic ops; concurrent adds never conflict.
  const seen = await d.doTn(async (tn) => { tn.add('c2', le64(1)); tn.add('c2', le64(2)); return tn.get('c2'); });
  assert.deepEqual(seen, le64(3));
  await Promise.all(Array.from({ length: 20 }, () => d.add('ctr', le64(1))));
  assert.deepEqual(await d.get('ctr'), le64(20));
});

check('versionstamps: versionstamped key/value, getVersionstamp, committed version, ordering', async () => {
  const d = space('vs');
  const stampOnce = async (suffix) => {
    const tn = d.rawCreateTransaction();
    tn.setVersionstampSuffixedKey('k/', `value-${suffix}`, buf(`/${suffix}`));
    tn.setVersionstampPrefixedValue(`pv-${suffix}`, buf(`payload-${suffix}`));
    const stamp = tn.getVersionstamp();  // must be asked for before commit
    await tn.rawCommit();
    const committed = tn.getCommittedVersion();
    return { stamp: await stamp.promise, committed };
  };
  const first = await stampOnce('one');
  const second = await stampOnce('two');
  for (const { stamp, committed } of [first, second]) {
    assert.equal(stamp.length, 10, 'a versionstamp has 10 bytes');
    assert.equal(committed.length, 8);
    assert.deepEqual(stamp.subarray(0, 8), committed, 'versionstamp = big-endian commit version + 2-byte batch order');
  }
  assert.ok(Buffer.compare(first.stamp, second.stamp) < 0, 'versionstamps increase across commits');
  assert.ok(Buffer.compare(first.committed, second.committed) < 0, 'commit versions increase across commits');

  const keys = await d.getRangeAllStartsWith('k/');
  assert.deepEqual(keys.map(([k, v]) => [k, str(v)]), [
    [Buffer.concat([buf('k/'), first.stamp, buf('/one')]), 'value-one'],
    [Buffer.concat([buf('k/'), second.stamp, buf('/two')]), 'value-two'],
  ]);
  const pv = await d.getVersionstampPrefixedValue('pv-one');
  assert.deepEqual(pv.stamp, first.stamp);
  assert.equal(str(pv.value), 'payload-one');

  // Unbound versionstamps in tuples, baked by the binding after commit (through getVersionstamp).
  const tk = d.at('t/').withKeyEncoding(fdb.tuple);
  const tupleKey = ['event', fdb.tuple.unboundVersionstamp()];
  await tk.doTn(async (tn) => { tn.setVersionstampedKey(tupleKey, 'happened'); });
  assert.equal(tupleKey[1].type, 'versionstamp', 'the binding baked the versionstamp into the key');
  assert.equal(tupleKey[1].value.length, 12, 'a tuple versionstamp is 10 bytes + a 2-byte user version');
  const stored = await tk.getRangeAllStartsWith(['event']);
  assert.deepEqual(stored.map(([k, v]) => [k, str(v)]), [[tupleKey, 'happened']]);

  const tv = d.at('tv/').withValueEncoding(fdb.tuple);
  const tupleValue = ['stamped', fdb.tuple.unboundVersionstamp()];
  await tv.doTn(async (tn) => { tn.setVersionstampedValue('k', tupleValue); });
  assert.equal(tupleValue[1].type, 'versionstamp');
  assert.deepEqual(await tv.get('k'), tupleValue);
  assert.ok(Buffer.compare(tupleKey[1].value.subarray(0, 10), tupleValue[1].value.subarray(0, 10)) < 0);

  // A read-only transaction has no versionstamp and no commit version.
  const ro = d.rawCreateTransaction();
  await ro.get('pv-one');
  const roStamp = ro.getVersionstamp();
  await ro.rawCommit();
  await rejectsWith(roStamp.promise, 2021, 'getVersionstamp of a read-only transaction');
  assert.deepEqual(ro.getCommittedVersion(), Buffer.alloc(8, 0xff), 'committed version of a read-only commit is -1');
});

check('conflicts: read-write conflict raises 1020, onError retries, doTransaction retries then succeeds', async () => {
  const d = space('conflict');
  await d.set('k', 'v0');
  const t1 = d.rawCreateTransaction();
  const t2 = d.rawCreateTransaction();
  assert.equal(str(await t1.get('k')), 'v0');
  assert.equal(str(await t2.get('k')), 'v0');
  t2.set('k', 't2');
  await t2.rawCommit();
  t1.set('other', 't1');
  const error = await rejectsWith(t1.rawCommit(), 1020, 'commit after a conflicting write');
  assert.equal(error.message, 'Transaction not committed due to conflict with another transaction');
  assert.equal(await d.get('other'), undefined, 'a conflicting transaction writes nothing');
  await t1.rawOnError(1020);  // retryable: resolves after a backoff and resets the transaction
  assert.equal(str(await t1.get('k')), 't2');
  t1.set('k', 't1-retry');
  await t1.rawCommit();
  assert.equal(str(await d.get('k')), 't1-retry');

  // The binding's retry loop (fdb_transaction_on_error) with transaction options.
  let attempts = 0;
  const result = await d.doTransaction(async (tn) => {
    attempts++;
    const v = str(await tn.get('k'));
    if (attempts === 1) await d.set('k', 'interloper');  // another transaction commits a conflicting write
    tn.set('k', `${v}+1`);
    return v;
  }, { retry_limit: 5, timeout: 20000, max_retry_delay: 100 });
  assert.equal(attempts, 2, 'the body ran twice: once conflicting, once committing');
  assert.equal(result, 'interloper');
  assert.equal(str(await d.get('k')), 'interloper+1');

  // An explicit read conflict range conflicts like a read; a write conflict range like a write.
  const t3 = d.rawCreateTransaction();
  await t3.getReadVersion();
  t3.addReadConflictKey('watched');
  t3.set('x', '1');
  const t4 = d.rawCreateTransaction();
  t4.addWriteConflictKey('watched');
  t4.set('y', '1');
  await t4.rawCommit();
  await rejectsWith(t3.rawCommit(), 1020, 'explicit read conflict range vs explicit write conflict range');

  // Blind writes never conflict.
  const t5 = d.rawCreateTransaction();
  const t6 = d.rawCreateTransaction();
  t5.set('blind', '5');
  t6.set('blind', '6');
  await t6.rawCommit();
  await t5.rawCommit();
  assert.equal(str(await d.get('blind')), '5');
});

check('snapshot reads do not conflict; a read version sees one snapshot', async () => {
  const d = space('snapshot');
  await d.doTn(async (tn) => { tn.set('k', 'v0'); tn.set('r/1', 'a'); });
  const t1 = d.rawCreateTransaction();
  assert.equal(str(await t1.snapshot().get('k')), 'v0');
  assert.deepEqual(pairs(await t1.snapshot().getRangeAll('r/', 'r0')), [['r/1', 'a']]);
  await d.doTn(async (tn) => { tn.set('k', 'changed'); tn.set('r/2', 'b'); });
  assert.equal(str(await t1.snapshot().get('k')), 'v0', 'reads stay at the read version');
  t1.set('out', 'x');
  await t1.rawCommit();  // no conflict: its reads were snapshot reads
  assert.equal(str(await d.get('out')), 'x');

  // setReadVersion pins a transaction to an older snapshot.
  const reader = d.rawCreateTransaction();
  const rv = await reader.getReadVersion();
  assert.equal(rv.length, 8);
  assert.ok(rv.readBigInt64BE() > 0n, 'read version > 0');
  await d.set('k', 'newer');
  const pinned = d.rawCreateTransaction();
  pinned.setReadVersion(rv);
  assert.deepEqual(await pinned.getReadVersion(), rv);
  assert.equal(str(await pinned.get('k')), 'changed');
  const fresh = d.rawCreateTransaction();
  assert.equal(str(await fresh.get('k')), 'newer');
  assert.ok(Buffer.compare(await fresh.getReadVersion(), rv) > 0, 'read versions increase');
});

check('callback-style API (futures completing into JS callbacks)', async () => {
  const d = space('callback');
  await d.set('k', 'v');
  const tn = d.rawCreateTransaction();
  const viaCallback = (fn) => new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));
  assert.equal(str(await viaCallback((cb) => tn.get('k', cb))), 'v');
  assert.equal((await viaCallback((cb) => tn.getReadVersion(cb))).length, 8);
  tn.set('k2', 'v2');
  await viaCallback((cb) => tn.rawCommit(cb));
  assert.equal(str(await d.get('k2')), 'v2');
});

check('watches: fire on change, not on an equal write; cancel resolves false', async () => {
  const d = space('watch');
  await d.set('w', 'a');
  const w1 = await d.getAndWatch('w');
  assert.equal(str(w1.value), 'a');
  await d.set('w', 'b');
  assert.equal(await within(w1.promise, 5000, 'watch after a change'), true);

  const w2 = await d.getAndWatch('w');
  let settled = false;
  w2.promise.then(() => { settled = true; });
  await d.set('w', 'b');  // same value: no change
  await sleep(200);
  assert.equal(settled, false, 'a watch fired although the value did not change');
  w2.cancel();  // fdb_future_cancel: operation_cancelled, which the binding reports as false
  assert.equal(await within(w2.promise, 5000, 'cancelled watch'), false);

  const w3 = await d.setAndWatch('w3', 'x');
  await d.clear('w3');
  assert.equal(await within(w3.promise, 5000, 'watch after a clear'), true);

  const w4 = await d.clearAndWatch('w4');
  await d.set('w4', 'now');
  assert.equal(await within(w4.promise, 5000, 'watch of a missing key after a set'), true);
});

check('errors: legal range, size limits, cancel, timeout, error predicates', async () => {
  const e1 = await rejectsWith(db.set(Buffer.from([0xff, 0x00]), 'x'), 2004, 'write into the system key space');
  assert.equal(e1.message, 'Key outside legal range');
  await rejectsWith(db.set(Buffer.alloc(10001, 'k'), 'x'), 2102, 'a 10,001-byte key');
  await rejectsWith(db.set('toolarge', Buffer.alloc(100001)), 2103, 'a 100,001-byte value');

  const d = space('errors');
  const cancelled = d.rawCreateTransaction();
  cancelled.rawCancel();
  await rejectsWith(cancelled.get('k'), 1025, 'a read on a cancelled transaction');

  const timed = d.rawCreateTransaction({ timeout: 50 });
  await sleep(150);
  await rejectsWith(timed.get('k'), 1031, 'a read after the transaction timeout');

  // fdb_error_predicate, as the binding exports it (ErrorPredicate: 50000 retryable, 50001 maybe
  // committed, 50002 retryable and not committed).
  assert.equal(native.errorPredicate(50000, 1020), true);
  assert.equal(native.errorPredicate(50000, 2004), false);
  assert.equal(native.errorPredicate(50001, 1021), true);
  assert.equal(native.errorPredicate(50001, 1020), false);
  assert.equal(native.errorPredicate(50002, 1020), true);
  assert.equal(native.errorPredicate(50002, 1021), false);
});

check('size estimates, split points, addresses, approximate size', async () => {
  const d = space('sizes');
  await d.doTn(async (tn) => { for (let i = 0; i < 50; i++) tn.set(`k${String(i).padStart(2, '0')}`, Buffer.alloc(100)); });
  const estimate = await d.getEstimatedRangeSizeBytes('k', 'l');
  assert.equal(typeof estimate, 'number');
  assert.ok(estimate >= 0);
  const points = await d.getRangeSplitPoints('k', 'l', 1000);
  assert.ok(Array.isArray(points) && points.length >= 2, 'split points include begin and end');
  assert.equal(str(points[0]), 'k');
  assert.equal(str(points[points.length - 1]), 'l');
  const addresses = await d.doTn((tn) => tn.getAddressesForKey('k00'));
  assert.ok(Array.isArray(addresses) && addresses.every((a) => typeof a === 'string'));
  const sizes = await d.doTn(async (tn) => {
    tn.set('foo', 'bar');
    const one = await tn.getApproximateSize();
    tn.set('foo2', 'bar2');
    return [one, await tn.getApproximateSize()];
  });
  assert.ok(sizes[0] >= 3 && sizes[1] > sizes[0], `approximate size grows: ${sizes}`);
});

check('tuple layer: key order and exact bytes', async () => {
  const d = space('tuple');
  const dt = d.withKeyEncoding(fdb.tuple).withValueEncoding(fdb.encoders.json);
  await dt.doTn(async (tn) => {
    tn.set(['user', 2, 'name'], { n: 'bob' });
    tn.set(['user', 1, 'name'], { n: 'ann' });
    tn.set(['user', -1, 'x'], { n: 'neg' });
    tn.set(['user', 'a'], 'str');
    tn.set(['user', null], 'null');
    tn.set(['user', Buffer.from([0, 1])], 'bytes');
    tn.set(['user', true], 'true');
    tn.set(['other'], 'other');
  });
  const got = await dt.getRangeAllStartsWith(['user']);
  assert.deepEqual(got, [
    [['user', null], 'null'],
    [['user', Buffer.from([0, 1])], 'bytes'],
    [['user', 'a'], 'str'],
    [['user', -1, 'x'], { n: 'neg' }],
    [['user', 1, 'name'], { n: 'ann' }],
    [['user', 2, 'name'], { n: 'bob' }],
    [['user', true], 'true'],
  ]);
  const raw = Buffer.from([0x02, ...buf('user'), 0x00, 0x15, 0x01, 0x02, ...buf('name'), 0x00]);
  assert.deepEqual(fdb.tuple.pack(['user', 1, 'name']), raw);
  assert.equal(str(await d.get(raw)), '{"n":"ann"}');
  assert.deepEqual(await dt.get(['user', 2, 'name']), { n: 'bob' });
});

check('directory layer: create / open / list / move / remove, data under directories', async () => {
  const dl = fdb.directory;
  const root = await dl.createOrOpen(db, ['nodetest']);
  const a = await dl.create(db, ['nodetest', 'a']);
  assert.deepEqual(a.getPath(), ['nodetest', 'a']);
  const prefixA = Buffer.from(a.getSubspace().prefix);
  assert.ok(prefixA.length > 0);
  await rejectsWithDirectoryError(dl.create(db, ['nodetest', 'a']), 'creating an existing directory');
  assert.deepEqual((await dl.open(db, ['nodetest', 'a'])).getSubspace().prefix, prefixA);
  assert.deepEqual((await dl.createOrOpen(db, ['nodetest', 'a'])).getSubspace().prefix, prefixA);
  await rejectsWithDirectoryError(dl.open(db, ['nodetest', 'nope']), 'opening a missing directory');

  const b = await dl.create(db, ['nodetest', 'b'], 'mylayer');
  assert.equal(b.getLayer(), 'mylayer');
  await rejectsWithDirectoryError(dl.open(db, ['nodetest', 'b'], 'otherlayer'), 'opening with the wrong layer');
  assert.equal((await dl.open(db, ['nodetest', 'b'], 'mylayer')).getLayer(), 'mylayer');
  assert.deepEqual(await dl.listAll(db, ['nodetest']), ['a', 'b']);
  assert.ok(Buffer.compare(prefixA, Buffer.from(b.getSubspace().prefix)) !== 0, 'distinct prefixes');

  // Data lives under the directory's prefix.
  const da = db.at(a).withKeyEncoding(fdb.tuple);
  await da.set(['k', 1], 'v1');
  assert.deepEqual(pairs(await db.getRangeAllStartsWith(prefixA)),
    [[str(Buffer.concat([prefixA, fdb.tuple.pack(['k', 1])])), 'v1']]);

  // The on-disk format every binding shares: metadata under \xfe, version 1.0.0, subdirectory
  // entries (0, name) -> prefix.
  const rootNode = Buffer.from([0xfe, 0x01, 0xfe, 0x00]);
  assert.deepEqual(await db.get(Buffer.concat([rootNode, fdb.tuple.pack([buf('version')])])),
    Buffer.from([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
  assert.deepEqual(await db.get(Buffer.concat([rootNode, fdb.tuple.pack([0, 'nodetest'])])),
    Buffer.from(root.getSubspace().prefix));
  for (const prefix of [root.getSubspace().prefix, prefixA]) {
    const [n] = fdb.tuple.unpack(Buffer.from(prefix));
    assert.ok(Number.isInteger(n) && n >= 0 && n < 64, `early prefixes are small tuple integers, got ${n}`);
  }

  // move keeps the prefix and the data.
  const c = await dl.move(db, ['nodetest', 'a'], ['nodetest', 'c']);
  assert.deepEqual(c.getSubspace().prefix, prefixA);
  assert.deepEqual(await dl.listAll(db, ['nodetest']), ['b', 'c']);
  assert.equal(await dl.exists(db, ['nodetest', 'a']), false);
  assert.equal(await dl.exists(db, ['nodetest', 'c']), true);
  assert.equal(str(await db.at(await dl.open(db, ['nodetest', 'c'])).withKeyEncoding(fdb.tuple).get(['k', 1])), 'v1');

  // remove deletes the directory and its contents.
  await dl.remove(db, ['nodetest', 'c']);
  assert.deepEqual(await db.getRangeAllStartsWith(prefixA), []);
  assert.deepEqual(await dl.listAll(db, ['nodetest']), ['b']);
  await rejectsWithDirectoryError(dl.remove(db, ['nodetest', 'c']), 'removing a missing directory');
  assert.equal(await dl.removeIfExists(db, ['nodetest', 'c']), false);

  // Concurrent creations (the high-contention allocator: snapshot reads, atomic adds, option 30).
  const names = Array.from({ length: 10 }, (_, i) => `p${i}`);
  const made = await Promise.all(names.map((n) => dl.create(db, ['nodetest', 'par', n])));
  const prefixes = new Set(made.map((dir) => Buffer.from(dir.getSubspace().prefix).toString('hex')));
  assert.equal(prefixes.size, names.length, 'concurrently created directories get distinct prefixes');
  assert.deepEqual(await dl.listAll(db, ['nodetest', 'par']), names);
});

// ---- Runner. ------------------------------------------------------------------------------------
const unhandled = [];
process.on('unhandledRejection', (error) => {
  console.error(`binding_test: unhandled promise rejection: ${error && error.stack || error}`);
  unhandled.push(error);
});

async function main() {
  fdb.setAPIVersion(API_VERSION);  // fdb_select_api_version_impl(API_VERSION, header version)
  // Network options, after the API version and before the network starts (fdb_network_set_option:
  // a no-value option and a string option).
  fdb.configNetwork({ disable_client_statistics_logging: true, trace_log_group: 'node-binding-test' });
  db = fdb.open(clusterFile, { max_watches: 10000, transaction_timeout: 120000 });  // fdb_create_database + options
  await db.clearRange(Buffer.alloc(0), Buffer.from([0xff]));  // the whole normal key space

  const only = process.env.FDB_NODE_TEST_ONLY;
  let passed = 0;
  const failed = [];
  for (const { name, fn } of checks) {
    if (only && !name.includes(only)) continue;
    const start = Date.now();
    let hung = false;
    try {
      await within(fn(), CHECK_TIMEOUT_MS, 'check').catch((e) => {
        if (/^check: not settled/.test(e.message)) hung = true;
        throw e;
      });
      passed++;
      console.log(`  ok    ${name} (${Date.now() - start} ms)`);
    } catch (error) {
      failed.push(name);
      console.log(`  FAIL  ${name}`);
      console.log(String(hung ? `hung for ${CHECK_TIMEOUT_MS} ms (a future never completed?)` : error && error.stack || error)
        .split('\n').map((l) => `        ${l}`).join('\n'));
      if (hung) break;  // futures are still pending: later checks would be meaningless
    }
  }
  if (unhandled.length) failed.push(`${unhandled.length} unhandled promise rejection(s)`);
  console.log(`${MODE}: ${passed} passed, ${failed.length} failed`);
  if (failed.length) {
    console.error(`binding_test (${MODE}): failed: ${failed.join('; ')}`);
    process.exit(1);  // the binding's exit hook still stops the network thread
  }
  // On success the process must end by itself: every future completed and the binding's
  // exit hook stops and joins the network thread. If it does not, say so.
  setTimeout(() => {
    console.error(`binding_test (${MODE}): all checks passed but the process did not exit within 10 s ` +
                  '(an FDB future or the network thread is still holding the event loop)');
    process.exit(1);
  }, 10000).unref();
}

main().catch((error) => {
  console.error(`binding_test (${MODE}): setup failed: ${error && error.stack || error}`);
  console.log(`${MODE}: 0 passed, 1 failed`);
  process.exit(1);
});
