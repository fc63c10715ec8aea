/**
 * A minimal PNG decoder for the tests (8-bit RGB/RGBA, not interlaced): checks the signature, reads IHDR,
 * inflates the IDAT stream with node:zlib and undoes the five scanline filters of the PNG specification.
 */
import { inflateSync } from "node:zlib";

export interface DecodedPng {
  width: number;
  height: number;
  /** RGBA, 4 bytes a pixel. */
  rgba: Uint8Array;
}

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

export function decodePng(bytes: Uint8Array): DecodedPng {
  SIGNATURE.forEach((b, i) => {
    if (bytes[i] !== b) throw new Error("not a PNG");
  });
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let [width, height, depth, colorType, interlace] = [0, 0, 0, 0, 0];
  const idat: Uint8Array[] = [];
  for (let off = 8; off < bytes.length;) {
    const len = view.getUint32(off);
    const type = String.fromCharCode(...bytes.subarray(off + 4, off + 8));
    const data = bytes.subarray(off + 8, off + 8 + len);
    if (type === "IHDR") {
      [width, height] = [view.getUint32(off + 8), view.getUint32(off + 12)];
      [depth, colorType, interlace] = [data[8], data[9], data[12]];
    } else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") break;
    off += 12 + len;
  }
  if (depth !== 8 || (colorType !== 6 && colorType !== 2) || interlace !== 0) {
    throw new Error(`unsupported PNG: depth ${depth}, colour type ${colorType}, interlace ${interlace}`);
  }
  const bpp = colorType === 6 ? 4 : 3;
  const joined = new Uint8Array(idat.reduce((n, c) => n + c.length, 0));
  idat.reduce((off, c) => (joined.set(c, off), off + c.length), 0);
  const raw = new Uint8Array(inflateSync(joined));
  const stride = width * bpp;
  const out = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? out[y * stride + x - bpp] : 0;
      const b = y > 0 ? out[(y - 1) * stride + x] : 0;
      const c = x >= bpp && y > 0 ? out[(y - 1) * stride + x - bpp] : 0;
      const pred = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter];
      if (pred === undefined) throw new Error(`bad filter ${filter}`);
      out[y * stride + x] = (line[x] + pred) & 0xff;
    }
  }
  if (bpp === 4) return { width, height, rgba: out };
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) rgba.set([...out.subarray(i * 3, i * 3 + 3), 255], i * 4);
  return { width, height, rgba };
}

/** Pixel counts per colour as "#rrggbb" (alpha ignored). */
export function colorCounts(png: DecodedPng): Map<string, number> {
  const byRgb = new Map<number, number>();
  const px = png.rgba;
  for (let i = 0; i < px.length; i += 4) {
    const rgb = (px[i] << 16) | (px[i + 1] << 8) | px[i + 2];
    byRgb.set(rgb, (byRgb.get(rgb) ?? 0) + 1);
  }
  return new Map([...byRgb].map(([rgb, n]) => ["#" + rgb.toString(16).padStart(6, "0"), n]));
}

/** Decodes the base64 PNG a renderer returns. */
export function decodeBase64Png(b64: string): DecodedPng {
  return decodePng(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
}
