export { actionWorkflow } from './action.workflow';
export { pingWorkflow } from './ping.workflow';
export { syncRunWorkflow } from './sync-run.workflow';
export { webhookDeliveryWorkflow } from './webhook-delivery.workflow';
