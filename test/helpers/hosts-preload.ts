/**
 * A script for `node --require` that resolves `service.test` to 127.0.0.1 in the binary it loads
 * into, so that a test reaches a loopback server over TLS by the name its certificate bears
 * (test/fixtures/tls) without a proxy in between. Every other name resolves as usual.
 */
export const HOSTS_PRELOAD = `
const dns = require('node:dns');
const lookup = dns.lookup;
dns.lookup = function (host, options, callback) {
  if (host !== 'service.test') return lookup.apply(this, arguments);
  const done = typeof options === 'function' ? options : callback;
  const all = typeof options === 'object' && options !== null && options.all;
  process.nextTick(() =>
    all ? done(null, [{ address: '127.0.0.1', family: 4 }]) : done(null, '127.0.0.1', 4),
  );
};
`;
