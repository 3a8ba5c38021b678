// A PNG decoder for the end-to-end tests' screenshots (8-bit RGB or RGBA, not interlaced, as
// WebKitWebDriver writes them), and the pixel measures the tests compare. No npm dependency:
// node:zlib inflates the image data.
import { inflateSync } from "node:zlib";

/** The image in `png` (a Buffer): its width, height and RGBA pixels, four bytes each. */
export function decodePng(png) {
  if (png.readUInt32BE(0) !== 0x89504e47) throw new Error("not a PNG");
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const data = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString("latin1", offset + 4, offset + 8);
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = body.subarray(8, 13);
      channels = { 2: 3, 6: 4 }[colour] ?? 0;
      if (depth !== 8 || channels === 0 || interlace !== 0) throw new Error(`unsupported PNG: depth ${depth}, colour type ${colour}, interlace ${interlace}`);
    } else if (type === "IDAT") {
      data.push(body);
    } else if (type === "IEND") {
      break;
    }
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const rows = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? rows[y * stride + x - channels] : 0;
      const b = y > 0 ? rows[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? rows[(y - 1) * stride + x - channels] : 0;
      let predicted = 0;
      if (filter === 1) predicted = a;
      else if (filter === 2) predicted = b;
      else if (filter === 3) predicted = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
        predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else if (filter !== 0) throw new Error(`PNG filter ${filter}`);
      rows[y * stride + x] = (line[x] + predicted) & 0xff;
    }
  }
  const pixels = Buffer.alloc(width * height * 4, 0xff);
  for (let i = 0; i < width * height; i++) rows.copy(pixels, i * 4, i * channels, i * channels + Math.min(channels, 4));
  return { width, height, pixels };
}

/**
 * The region `rect` ({ x, y, width, height } in the image's pixels, clipped to it) as a grey
 * level per pixel, row by row.
 */
export function greyRegion(image, rect) {
  const x0 = Math.max(0, Math.floor(rect.x));
  const y0 = Math.max(0, Math.floor(rect.y));
  const x1 = Math.min(image.width, Math.ceil(rect.x + rect.width));
  const y1 = Math.min(image.height, Math.ceil(rect.y + rect.height));
  const width = Math.max(0, x1 - x0);
  const height = Math.max(0, y1 - y0);
  const grey = new Float64Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = ((y0 + y) * image.width + x0 + x) * 4;
      grey[y * width + x] = 0.299 * image.pixels[i] + 0.587 * image.pixels[i + 1] + 0.114 * image.pixels[i + 2];
    }
  }
  return { width, height, grey };
}

/** Which pixels of a grey region are ink: further than `threshold` from its commonest level. */
export function inkMask(region, threshold = 60) {
  const counts = new Map();
  for (const g of region.grey) counts.set(Math.round(g / 8), (counts.get(Math.round(g / 8)) ?? 0) + 1);
  const commonest = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
  const background = commonest ? commonest[0] * 8 : 0;
  return Array.from(region.grey, (g) => Math.abs(g - background) > threshold);
}

/** How many pixels two masks of the same size disagree on. */
export function maskDifference(a, b) {
  let n = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) n++;
  return n + Math.abs(a.length - b.length);
}

/** The mask of `region` cut into `n` cells of equal width, left to right. */
export function cells(region, mask, n) {
  const w = Math.floor(region.width / n);
  return Array.from({ length: n }, (_, k) => {
    const cell = [];
    for (let y = 0; y < region.height; y++) for (let x = k * w; x < (k + 1) * w; x++) cell.push(mask[y * region.width + x]);
    return cell;
  });
}
