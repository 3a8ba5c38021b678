// The Pitwatch protocol's lines as a device writes them, for the end-to-end tests' devices.
/** CRC-16/CCITT-FALSE, the Pitwatch protocol's checksum (drivers/pitwatch-proto/PROTOCOL.md §3). */
export function crc16(text) {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, "ascii")) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** One line of the Pitwatch protocol, checksum and line end included. */
export function pwLine(body) {
  return `${body} *${crc16(body).toString(16).toUpperCase().padStart(4, "0")}\r\n`;
}
