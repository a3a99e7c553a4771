import { ServiceTarget } from '../../../lib/app/settings';
import { vmRoutingReasons } from '../../../lib/app/vm/vm-routing';
import { service } from '../../support/model-builder';

describe('vmRoutingReasons: where a service runs, the most specific choice first', () => {
  const plain = service('web');
  const privileged = service('agent', { privileged: true });
  const ownVm = service('legacy', { extensions: { 'x-cdk8s-compose': { target: 'vm' } } });

  test('a container unless something chooses the VM', () => {
    expect(vmRoutingReasons(plain, {})).toEqual([]);
    expect(vmRoutingReasons(privileged, { target: ServiceTarget.CONTAINER })).toEqual([]);
  });

  test("vm names where it was chosen; the app-wide wording can be the caller's", () => {
    expect(vmRoutingReasons(plain, { target: ServiceTarget.VM })).toEqual(['target is "vm"']);
    expect(vmRoutingReasons(plain, { target: ServiceTarget.VM, targetWhy: '--target vm' })).toEqual(['--target vm']);
    expect(vmRoutingReasons(plain, { listed: true })).toEqual(['vm.services lists it']);
    expect(vmRoutingReasons(ownVm, { target: ServiceTarget.CONTAINER })).toEqual(['x-cdk8s-compose.target is "vm"']);
  });

  test("the service's own props win over vm.services, its extension and the app", () => {
    expect(
      vmRoutingReasons(ownVm, { override: ServiceTarget.CONTAINER, listed: true, target: ServiceTarget.VM }),
    ).toEqual([]);
    expect(vmRoutingReasons(plain, { override: ServiceTarget.VM })).toEqual(['services["web"].target is "vm"']);
  });

  test('auto takes what assessment finds', () => {
    expect(vmRoutingReasons(plain, { target: ServiceTarget.AUTO })).toEqual([]);
    expect(vmRoutingReasons(privileged, { target: ServiceTarget.AUTO })).toEqual([expect.stringMatching(/privileged/)]);
  });
});
