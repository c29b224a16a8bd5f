// A doubly linked list of things alive now (requests in flight, bodies arriving), for registries
// whose members come and go with every request (issue 8). A Map or Set there is rehashed every few
// dozen adds to drop its deleted entries; V8 allocates the new table in the old generation when
// the collection lives there, and the table it replaces keeps the entries it held. Until the next
// full GC each such table kept the members of that moment reachable, so every request was
// promoted (checked in V8's ordered-hash-table.cc; measured in src/lifecycle/in-flight.ts and
// src/front/body-deadlines.ts). A node that leaves is unlinked: nothing dead points at a live one.
export class LiveNode<T> {
  prev: LiveNode<T> | undefined
  next: LiveNode<T> | undefined
  linked = true
  readonly value: T

  constructor(value: T) {
    this.value = value
  }
}

export class LiveList<T> {
  #head: LiveNode<T> | undefined
  #tail: LiveNode<T> | undefined
  #size = 0

  get size(): number {
    return this.#size
  }

  // Appended last; the node is the handle to remove it with.
  push(value: T): LiveNode<T> {
    const node = new LiveNode(value)
    node.prev = this.#tail
    if (this.#tail === undefined) this.#head = node
    else this.#tail.next = node
    this.#tail = node
    this.#size++
    return node
  }

  // Removing a node twice, or one taken by shift(), changes nothing.
  remove(node: LiveNode<T>): void {
    if (!node.linked) return
    node.linked = false
    if (node.prev === undefined) this.#head = node.next
    else node.prev.next = node.next
    if (node.next === undefined) this.#tail = node.prev
    else node.next.prev = node.prev
    node.prev = undefined
    node.next = undefined
    this.#size--
  }

  // The oldest value, removed.
  shift(): T | undefined {
    const head = this.#head
    if (head === undefined) return undefined
    this.remove(head)
    return head.value
  }

  // Each node, oldest first; `visit` may remove the node it is given.
  forEach(visit: (node: LiveNode<T>) => void): void {
    let node = this.#head
    while (node !== undefined) {
      const next = node.next
      visit(node)
      node = next
    }
  }

  clear(): void {
    while (this.#head !== undefined) this.remove(this.#head)
  }
}
