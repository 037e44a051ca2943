// SPDX-License-Identifier: Apache-2.0
// Small seeded PRNG (xorshift32) so that every generated file is reproducible.

export class Random {
  constructor(seed) {
    this.state = (seed >>> 0) || 0x9e3779b9
  }

  /** Uniform float in [0, 1). */
  next() {
    let s = this.state
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    this.state = s >>> 0
    return this.state / 4294967296
  }

  /** Integer in [lo, hi] (both inclusive, |values| < 2^53). */
  int(lo, hi) {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }

  chance(p) {
    return this.next() < p
  }

  pick(items) {
    return items[Math.floor(this.next() * items.length)]
  }

  hex(digits) {
    let out = ''
    while (out.length < digits) out += this.int(0, 0xffff).toString(16).padStart(4, '0')
    return out.slice(0, digits)
  }

  /** Random (version 4 shaped) UUID string. */
  uuid() {
    const h = this.hex(32)
    const variant = '89ab'[this.int(0, 3)]
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`
  }
}
