import qrcode from 'qrcode-generator';

/** The most bytes a QR code holds at error correction level M (version 40, byte mode). */
const MAX_BYTES = 2331;

/**
 * A QR code of `text` as an SVG string, drawn from the QR matrix only: the
 * markup holds numbers, never the text. Undefined when the text does not fit
 * in a QR code.
 *
 * @example
 * qrCodeSvg('https://records.example/r/1.pdf')
 * //=> '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 33 33" ...><path d="M4 4h7v1h-7z..."/></svg>'
 */
export function qrCodeSvg(text: string): string | undefined {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > MAX_BYTES) return undefined;
  let code: ReturnType<typeof qrcode>;
  try {
    code = qrcode(0, 'M');
    // The library's byte mode takes one character per byte: hand it the UTF-8 bytes so any text encodes as UTF-8.
    code.addData(String.fromCharCode(...bytes), 'Byte');
    code.make();
  } catch {
    return undefined;
  }
  const n = code.getModuleCount();
  const quiet = 4;
  let d = '';
  for (let y = 0; y < n; y++) {
    let x = 0;
    while (x < n) {
      if (!code.isDark(y, x)) {
        x++;
        continue;
      }
      const start = x;
      while (x < n && code.isDark(y, x)) x++;
      d += `M${start + quiet} ${y + quiet}h${x - start}v1h-${x - start}z`;
    }
  }
  const size = n + 2 * quiet;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" class="qr-code" shape-rendering="crispEdges" aria-hidden="true" focusable="false"><rect width="${size}" height="${size}" fill="#fff"/><path fill="#000" d="${d}"/></svg>`;
}
