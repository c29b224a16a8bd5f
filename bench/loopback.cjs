'use strict'
// Preload (`node --require ./bench/loopback.cjs …`) for peers that have no host option
// (supergateway listens on all interfaces): every TCP listen is forced onto 127.0.0.1.
// Unix sockets, pipes and inherited handles are left alone.
const net = require('node:net')

const LOOPBACK = '127.0.0.1'
const originalListen = net.Server.prototype.listen

function isPipePath(value) {
  return typeof value === 'string' && !/^\d+$/.test(value)
}

function toLoopbackArgs(args) {
  const callback = typeof args[args.length - 1] === 'function' ? args[args.length - 1] : undefined
  const first = args[0]
  const tail = callback ? [callback] : []
  if (first !== null && typeof first === 'object') {
    if (first.path !== undefined || first.fd !== undefined || first.handle !== undefined || first._handle !== undefined) return args
    return [{ ...first, host: LOOPBACK }, ...tail]
  }
  if (isPipePath(first)) return args
  const port = typeof first === 'number' || typeof first === 'string' ? Number(first) : 0
  const backlog = args.slice(1).find((value) => typeof value === 'number')
  return [backlog === undefined ? { port, host: LOOPBACK } : { port, host: LOOPBACK, backlog }, ...tail]
}

net.Server.prototype.listen = function listenOnLoopback(...args) {
  return originalListen.apply(this, toLoopbackArgs(args))
}
