const config = { retries: 3, backoff: 200 };
function delays(n) {
  return Array.from({ length: n }, (_, i) => config.backoff * 2 ** i;
}
console.log(delays(config.retries));
