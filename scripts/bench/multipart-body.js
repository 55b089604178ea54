/**
 * The upload of the bench's floors: one WAV as the `source_audio` field of a multipart form, built
 * whole in memory (the floors' files are small), as the service's interface takes it.
 */
const BOUNDARY = '----vredact-bench-floor';
const HEAD = Buffer.from(
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="source_audio"; filename="a.wav"\r\n` +
    'Content-Type: audio/wav\r\n\r\n',
);
const TAIL = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

export const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

export function multipartBody(wav) {
  return Buffer.concat([HEAD, wav, TAIL]);
}
