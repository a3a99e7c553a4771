/** A network the VM's interfaces attach to (`spec.template.spec.networks[]`). */
export class VmNetwork {
  /**
   * The pod network (`pod: {}`): the cluster network that Services and NetworkPolicies act on. At most one per VM.
   * @param name the network name; the interface with the same name attaches to it
   */
  public static pod(name = 'default'): VmNetwork {
    return new VmNetwork(name, 'pod');
  }

  /**
   * A secondary network from Multus (`multus.networkName`).
   * @param name the network name; the interface with the same name attaches to it
   * @param networkName the NetworkAttachmentDefinition, `<name>` or `<namespace>/<name>`
   */
  public static multus(name: string, networkName: string): VmNetwork {
    return new VmNetwork(name, 'multus', networkName);
  }

  private constructor(
    /** The network name. */
    public readonly name: string,
    /** `pod` or `multus`. */
    public readonly kind: 'pod' | 'multus',
    /** The NetworkAttachmentDefinition, for Multus networks. */
    public readonly networkName?: string,
  ) {}
}
