/** Thrown when a file is not decodable audio or decodes to zero samples. */
export class AudioDecodeError extends Error {
  override name = 'AudioDecodeError';
}
