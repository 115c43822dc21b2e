import { create } from 'qrcode';

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
  let modules: { size: number; data: ArrayLike<number | boolean> };
  try {
    modules = create(text, { errorCorrectionLevel: 'M' }).modules as unknown as { size: number; data: ArrayLike<number | boolean> };
  } catch {
    return undefined;
  }
  const n = modules.size;
  const quiet = 4;
  let d = '';
  for (let y = 0; y < n; y++) {
    let x = 0;
    while (x < n) {
      if (!modules.data[y * n + x]) {
        x++;
        continue;
      }
      const start = x;
      while (x < n && modules.data[y * n + x]) x++;
      d += `M${start + quiet} ${y + quiet}h${x - start}v1h-${x - start}z`;
    }
  }
  const size = n + 2 * quiet;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" class="qr-code" shape-rendering="crispEdges" aria-hidden="true" focusable="false"><rect width="${size}" height="${size}" fill="#fff"/><path fill="#000" d="${d}"/></svg>`;
}
