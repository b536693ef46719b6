from builtins import range
import numpy as np
from random import shuffle
from past.builtins import xrange

def softmax_loss_naive(W, X, y, reg):
    """
    Softmax loss function, naive implementation (with loops)

    Inputs have dimension D, there are C classes, and we operate on minibatches
    of N examples.

    Inputs:
    - W: A numpy array of shape (D, C) containing weights.
    - X: A numpy array of shape (N, D) containing a minibatch of data.
    - y: A numpy array of shape (N,) containing training labels; y[i] = c means
      that X[i] has label c, where 0 <= c < C.
    - reg: (float) regularization strength

    Returns a tuple of:
    - loss as single float
    - gradient with respect to weights W; an array of same shape as W
    """
    # Initialize the loss and gradient to zero.
    loss = 0.0
    dW = np.zeros_like(W)

    #############################################################################
    # TODO: Compute the softmax loss and its gradient using explicit loops.     #
    # Store the loss in loss and the gradient in dW. If you are not careful     #
    # here, it is easy to run into numeric instability. Don't forget the        #
    # regularization!                                                           #
    #############################################################################
    # *****START OF YOUR CODE (DO NOT DELETE/MODIFY THIS LINE)*****

    num_train, num_classes = X.shape[0], W.shape[1]
    scores = np.dot(X, W)
    for i in range(num_train):
      loss -= scores[i][y[i]]
      dW[:, y[i]] -= X[i]
      tmp_sum = 0.0
      for j in range(num_classes):
        tmp_sum += np.exp(scores[i][j])
      for j in range(num_classes):
        dW[:, j] += X[i] * np.exp(scores[i][j]) / tmp_sum
      loss += np.log(tmp_sum)
    loss /= num_train
    loss += 0.5 * reg * np.sum(W * W)
    dW /= num_train
    dW += reg * W
  
    # *****END OF YOUR CODE (DO NOT DELETE/MODIFY THIS LINE)*****

    return loss, dW



def softmax_loss_vectorized(W, X, y, reg):
    """
    Softmax loss function, vectorized version.

    Inputs and outputs are the same as softmax_loss_naive.
    """
    # Initialize the loss and gradient to zero.
    loss = 0.0
    dW = np.zeros_like(W)

    #############################################################################
    # TODO: Compute the softmax loss and its gradient using no explicit loops.  #
    # Store the loss in loss and the gradient in dW. If you are not careful     #
    # here, it is easy to run into numeric instability. Don't forget the        #
    # regularization!                                                           #
    #############################################################################
    # *****START OF YOUR CODE (DO NOT DELETE/MODIFY THIS LINE)*****

    num_train, num_classes = X.shape[0], W.shape[1]
    scores = np.dot(X, W)
    loss -= np.mean(scores[range(num_train), y])
    loss += np.mean(np.log(np.sum(np.exp(scores), 1)))
    loss += 0.5 * reg * np.sum(W * W)

    dW = np.dot(X.T, np.exp(scores) / np.sum(np.exp(scores), axis = 1).reshape(-1, 1))
    d_scores = np.zeros_like(scores)
    d_scores[range(num_train), y] -= 1
    dW += np.dot(X.T, d_scores)
    dW /= num_train
    dW += reg * W

    # *****END OF YOUR CODE (DO NOT DELETE/MODIFY THIS LINE)*****

    return loss, dW
