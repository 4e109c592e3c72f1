import { describe, expect, it } from 'vitest';
import { instanceImageName } from '../../../src/eval/swebench/instance-image-name.js';

describe('instanceImageName', () => {
  it.each([
    ['django__django-11333', 'swebench/sweb.eval.x86_64.django_1776_django-11333:latest'],
    ['sympy__sympy-20590', 'swebench/sweb.eval.x86_64.sympy_1776_sympy-20590:latest'],
    ['scikit-learn__scikit-learn-10297', 'swebench/sweb.eval.x86_64.scikit-learn_1776_scikit-learn-10297:latest'],
    ['Project-MONAI__MONAI-3107', 'swebench/sweb.eval.x86_64.project-monai_1776_monai-3107:latest'],
  ])('%s → %s', (id, expected) => {
    expect(instanceImageName({ instance_id: id })).toBe(expected);
  });

  it('prefers the record image', () => {
    expect(instanceImageName({ instance_id: 'a__b-1', image: 'ghcr.io/x/y:v1' })).toBe('ghcr.io/x/y:v1');
  });

  it('accepts another namespace and tag; "__" anywhere is replaced, as upstream', () => {
    expect(instanceImageName({ instance_id: 'a__b-1' }, { namespace: 'my__mirror', tag: 'v2' })).toBe('my_1776_mirror/sweb.eval.x86_64.a_1776_b-1:v2');
  });
});
