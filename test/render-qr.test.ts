/**
 * The printed QR code must scan back to the document link it was made from:
 * the SVG is drawn into pixels and read by an independent decoder (jsQR).
 */
import { describe, expect, it } from 'vitest';
import jsQRModule from 'jsqr';
import { qrCodeSvg } from '../src/render/qr.js';

// jsqr is CommonJS whose function also carries itself as `default`: that is the one its types describe.
const jsQR = jsQRModule.default;
const SCALE = 4;

/** The SVG's dark modules (its `M x y h w v1 h-w z` runs) drawn as RGBA pixels, SCALE per module. */
function pixels(svg: string): { data: Uint8ClampedArray; size: number } {
  const side = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1]);
  const size = side * SCALE;
  const data = new Uint8ClampedArray(size * size * 4).fill(255);
  const path = /<path [^>]*d="([^"]*)"/.exec(svg)?.[1] ?? '';
  for (const run of path.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) {
    const [x, y, w] = [Number(run[1]), Number(run[2]), Number(run[3])];
    for (let py = y * SCALE; py < (y + 1) * SCALE; py++) for (let px = x * SCALE; px < (x + w) * SCALE; px++) data.fill(0, (py * size + px) * 4, (py * size + px) * 4 + 3);
  }
  return { data, size };
}

function scan(text: string): string | undefined {
  const svg = qrCodeSvg(text);
  expect(svg).toBeDefined();
  const { data, size } = pixels(svg ?? '');
  return jsQR(data, size, size)?.data;
}

describe('qrCodeSvg', () => {
  it('scans back to the document link it encodes', () => {
    const url = 'https://records.sanjeevani-clinic.example/r/OPD-2026-0042/prescription.pdf?v=2';
    expect(scan(url)).toBe(url);
  });

  it('encodes text beyond ASCII as UTF-8', () => {
    const text = 'https://अस्पताल.example/पर्चा/42';
    expect(scan(text)).toBe(text);
  });

  it('scans a link of a thousand characters (a large version)', () => {
    const url = `https://records.example/r/${'a'.repeat(1000)}`;
    expect(scan(url)).toBe(url);
  });

  it('gives undefined for text no QR code can hold, however long', () => {
    expect(qrCodeSvg('x'.repeat(2332))).toBeUndefined();
    expect(qrCodeSvg('x'.repeat(2_000_000))).toBeUndefined();
    expect(qrCodeSvg('x'.repeat(2331))).toMatch(/^<svg /);
  });

  it('puts only numbers in the markup, never the text', () => {
    const svg = qrCodeSvg('https://records.example/r/SECRET-VISIT-7') ?? '';
    expect(svg).not.toContain('SECRET');
    expect(/<path [^>]*d="([^"]*)"/.exec(svg)?.[1]).toMatch(/^[Mhvz\d -]+$/);
  });
});
